/*
 * arch.cu -- which GPU code the device runs, checked when a context opens.
 *
 * The plugin carries machine code for some architectures and PTX for some
 * (configure's NVCC_ARCH_DEFS names them: WRCUDA_SASS_LIST and
 * WRCUDA_PTX_LIST).  For each file of kernels the driver loads machine code
 * for the device's family (sm_XY code runs on sm_XZ, Z >= Y) or else
 * compiles the newest PTX it can (JIT).  When neither exists, or the PTX is
 * newer than the driver, the kernels fail to load, and with lazy loading
 * that would happen at the first call.  So the context's opening asks each
 * file's probe kernel for its attributes, which loads that code then: the
 * failure becomes WR_ERR_NO_BACKEND with a reason that names the device's
 * sm and what the plugin carries, and an AUTO context runs on the cpu.
 *
 * The same attributes say which code runs: binaryVersion, the architecture
 * of the machine code the device runs, and ptxVersion, the virtual
 * architecture it was made from.  Machine code built for the device's
 * family has binaryVersion in WRCUDA_SASS_LIST; JIT-compiled PTX has the
 * device's own.  The scan's ptxVersion also decides which scan kernel runs
 * (scan_stages_ok(), scan.cu).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "plugin.cuh"
#include "dot.cuh"

namespace wrcuda {

namespace {

/* The oldest architecture the backend supports: the oldest of configure's
 * default list, and the oldest nvcc 13 builds for. */
constexpr int kFloor = 75;

/* The lists as configure passes them: "75,80,90", "" (none), "native"
 * (nvcc chose for the build machine's GPUs) or "unknown"; NULL when the
 * build did not say. */
#ifdef WRCUDA_SASS_LIST
const char *const kSass = WRCUDA_SASS_LIST;
#else
const char *const kSass = nullptr;
#endif
#ifdef WRCUDA_PTX_LIST
const char *const kPtx = WRCUDA_PTX_LIST;
#else
const char *const kPtx = nullptr;
#endif

/* whether list is the word w */
bool is(const char *list, const char *w) { return list != nullptr && strcmp(list, w) == 0; }

/* whether list names architectures by number only ("", "75,80") */
bool known(const char *list)
{
    if (list == nullptr) return false;
    for (const char *c = list; *c; c++)
        if (!(*c >= '0' && *c <= '9') && *c != ',') return false;
    return true;
}

/* whether the known list holds architecture a */
bool holds(const char *list, int a)
{
    for (const char *c = list; *c;) {
        if (*c >= '0' && *c <= '9') {
            int v = 0;
            for (; *c >= '0' && *c <= '9'; c++) v = v * 10 + (*c - '0');
            if (v == a) return true;
        } else {
            c++;
        }
    }
    return false;
}

/* "sm_75,sm_80" from "75,80" (prefix sm_ or compute_) */
void spell(char *buf, size_t len, const char *list, const char *prefix)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const char *c = list; *c && n < len;) {
        if (*c >= '0' && *c <= '9') {
            const char *e = c;
            while (*e >= '0' && *e <= '9') e++;
            n += (size_t)snprintf(buf + n, len - n, "%s%s%.*s", n ? "," : "", prefix, (int)(e - c), c);
            c = e;
        } else {
            c++;
        }
    }
}

/* what the plugin carries, in words */
void carried(char *buf, size_t len)
{
    if (!known(kSass) || !known(kPtx)) {
        snprintf(buf, len, "%s", is(kSass, "native")
                                     ? "code for the GPUs of the machine it was built on (-arch=native)"
                                     : "code that its build did not list");
        return;
    }
    char s[96], p[64];
    spell(s, sizeof s, kSass, "sm_");
    spell(p, sizeof p, kPtx, "compute_");
    snprintf(buf, len, "%s%s and %s%s", s[0] ? "machine code for " : "no machine code", s, p[0] ? p : "no PTX",
             p[0] ? " PTX" : "");
}

/* a reason into err (WR_ERRLEN bytes, cut if longer) */
__attribute__((format(printf, 2, 3))) void say(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, WR_ERRLEN, fmt, ap);
    va_end(ap);
}

/* The refusal of a device whose code did not load (e: what the attributes
 * of the `what` kernels returned). */
wr_status refuse(const cudaDeviceProp &p, int sm, const char *what, cudaError_t e, char *err)
{
    char has[160];
    int drv = 0;
    (void)cudaGetLastError();
    carried(has, sizeof has);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    switch (e) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
        say(err, "%.60s is sm_%d, and the plugin has no code for it: it has %s; rebuild libwarpred with "
                 "./configure --with-cuda-arch=%d (or =all)", p.name, sm, has, sm);
        break;
    case cudaErrorUnsupportedPtxVersion:
        say(err,
                 "%.60s is sm_%d, and the plugin has no machine code for it and PTX too new for the driver "
                 "(CUDA %d.%d): it has %s; rebuild with --with-cuda-arch=%d", p.name, sm, drv / 1000,
                 drv % 1000 / 10, has, sm);
        break;
    default:
        say(err, "%.60s is sm_%d, and the %s kernels do not load (%s): the plugin has %s", p.name,
                 sm, what, cudaGetErrorString(e), has);
        break;
    }
    (void)cudaGetLastError();
    return WR_ERR_NO_BACKEND;
}

} /* namespace */

wr_status check_code(const cudaDeviceProp &p, const struct wr_host_api *host, code_info *ci, char *err)
{
    const int sm = p.major * 10 + p.minor;
    char has[160];
    if (sm < kFloor) {
        carried(has, sizeof has);
        say(err, "%.60s is sm_%d: the CUDA backend needs sm_%d or newer (the plugin has %s)",
                 p.name, sm, kFloor, has);
        return WR_ERR_NO_BACKEND;
    }
    /* WARPRED_CUDA_SCAN_KERNEL=block: scans with one block per tile
     * wherever they run (tests compare it with the other kernel) */
    const char *v = host->getenv("WARPRED_CUDA_SCAN_KERNEL");
    if (v && *v && strcmp(v, "auto") != 0 && strcmp(v, "block") != 0) {
        say(err, "WARPRED_CUDA_SCAN_KERNEL=%.40s: expected auto or block", v);
        return WR_ERR_INVALID_ARG;
    }
    /* every file with kernels (the scan's first: its attributes describe) */
    struct kernel_file { const char *what; const void *(*probe)(); };
    static const kernel_file files[] = {
        { "scan", probe_scan }, { "reduce", probe_reduce }, { "segments", probe_segments },
        { "exact sum", probe_exact }, { "segmented scan", probe_segscan },
        { "dot products", probe_dot },
    };
    constexpr size_t nfiles = sizeof files / sizeof files[0];
    cudaFuncAttributes fa[nfiles];
    for (size_t i = 0; i < nfiles; i++) {
        const cudaError_t e = cudaFuncGetAttributes(&fa[i], files[i].probe());
        if (e != cudaSuccess) return refuse(p, sm, files[i].what, e, err);
    }
    ci->scan_by_block = (v && strcmp(v, "block") == 0) || !scan_stages_ok(fa[0]);
    /* the code: machine code where its architecture is one the plugin
     * carries as such (without the list: where it is the one its PTX
     * would be, as configure pairs them), else JIT-compiled PTX */
    const int bv = fa[0].binaryVersion, pv = fa[0].ptxVersion;
    char code[40];
    if (known(kSass) ? holds(kSass, bv) : bv == pv) snprintf(code, sizeof code, "sm_%d machine code", bv);
    else snprintf(code, sizeof code, "compute_%d PTX, JIT", pv);
    snprintf(ci->desc, sizeof ci->desc, "%.100s (sm_%d, %s%s)", p.name, sm, code,
             ci->scan_by_block ? ", scan: one block per tile" : "");
    return WR_SUCCESS;
}

} /* namespace wrcuda */
