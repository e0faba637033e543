/*
 * crtoffloadtable.c -- a position-independent copy of GCC's offload table
 * object (libgcc/offloadstuff.c, CRT_TABLE), used only where configure
 * found that the compiler's own crtoffloadtable.o is not PIC (Debian's
 * GCC 12): that one puts the table's addresses in .rodata, which gives every
 * offloading shared object text relocations.  The build links with -B to
 * the directory of this object, which the link driver then finds first.
 *
 * The table lists the bounds of the offload function and variable tables
 * that the linker gathers from the objects; libgomp reads it when the
 * shared object registers its offload images.
 */
extern const void *const __offload_func_table[];
extern const void *const __offload_funcs_end[];
extern const void *const __offload_var_table[];
extern const void *const __offload_vars_end[];

__attribute__((__visibility__("hidden"))) const void *const __OFFLOAD_TABLE__[] = {
    &__offload_func_table, &__offload_funcs_end, &__offload_var_table, &__offload_vars_end
};
