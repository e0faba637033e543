/*
 * header_cxx.cc -- the installed header warpred.h compiles as C++ (its
 * extern "C" block, enums and opaque handle), and a C++ program links and
 * calls the library.
 */
#include <cstdio>
#include <cstring>
#include <warpred.h>

int main()
{
    wr_context *ctx = nullptr;
    double x[4] = { 1.5, -2.0, 8.25, 0.0 }, mx = 0.0;
    std::size_t idx = 99;
    wr_status st = wr_context_create(&ctx, WR_BACKEND_AUTO);
    if (st == WR_SUCCESS) st = wr_argmax(ctx, x, 4, WR_DOUBLE, &idx, &mx);
    std::printf("1..2\n");
    std::printf("ok 1 - warpred.h compiles as C++ (__cplusplus %ld)\n", static_cast<long>(__cplusplus));
    std::printf("%sok 2 - a C++ program links and calls the library (argmax %zu, %g)\n",
                st == WR_SUCCESS && idx == 2 && mx == 8.25 ? "" : "not ", idx, mx);
    wr_context_destroy(ctx);
    return 0;
}
