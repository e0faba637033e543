#!/bin/sh
# test_cuda_linkage.sh -- libwarpred.so has no link-time CUDA dependency, and
# the plugin needs only the driver: cudart is linked in statically, and the
# plugin exports exactly one name, its ops table.  Run from the build tree.
lib=lib/.libs/libwarpred.so
plugin=cuda/.libs/warpred_cuda.so
if ! command -v readelf >/dev/null 2>&1; then
    echo "1..0 # SKIP readelf not found"
    exit 0
fi
echo "1..5"
n=0
check() {  # check OK-CONDITION-EXIT-STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' '; }

[ -f "$lib" ]; check $? "$lib exists"
libneed=$(needed "$lib")
echo "# $lib NEEDED: $libneed"
echo "$libneed" | grep -qi 'cuda'; [ $? -ne 0 ]; check $? "libwarpred.so needs no CUDA library"
plugneed=$(needed "$plugin")
echo "# $plugin NEEDED: $plugneed"
[ -f "$plugin" ] && ! echo "$plugneed" | grep -qi 'cudart'; check $? "the plugin does not need libcudart (linked statically)"
# every defined dynamic symbol that is not local: GLOBAL, and also WEAK and
# UNIQUE (template instances of the C++ runtime come out weak)
syms=$(readelf --dyn-syms -W "$plugin" 2>/dev/null |
    awk '$1 ~ /^[0-9]+:$/ && $5 != "LOCAL" && $7 != "UND" { print $8 }' | tr '\n' ' ')
echo "# $plugin exports $(echo $syms | wc -w) names: $(echo $syms | cut -c1-300)"
[ "$(echo $syms)" = "warpred_backend_ops" ]; check $? "the plugin exports only warpred_backend_ops"
undef=$(nm -D -u "$plugin" 2>/dev/null | awk '{ print $2 }' | grep '^wr_' | tr '\n' ' ')
echo "# $plugin undefined wr_* names: ${undef:-none}"
[ -f "$plugin" ] && [ -z "$undef" ]; check $? "the plugin needs no symbol of libwarpred (it loads under dlopen RTLD_LOCAL)"
