/*
 * wr_blue.h -- the fast Euclidean norm's three sums of squares (internal;
 * C, host code and OpenMP target regions): Blue's scaling (J. L. Blue, "A
 * portable Fortran program to find the Euclidean norm of a vector", ACM
 * TOMS 4, 1978; LAPACK 3.10's dnrm2).  Squares of elements above 2^480 are
 * scaled by 2^-1200, below 2^-480 by 2^1200, the others (NaNs included)
 * taken as they are, so nothing overflows or underflows before the end;
 * wr_blue_finish combines the three sums.  Shared by the cpu and omptarget
 * backends' fast wr_nrm2 of doubles.
 */
#ifndef WR_BLUE_H
#define WR_BLUE_H

#include <math.h>

/* Thresholds and scalings (powers of two: every scaling is exact where it
 * does not underflow, and the small elements are scaled up). */
#define WR_BLUE_TSML 0x1p-480
#define WR_BLUE_TBIG 0x1p+480
#define WR_BLUE_SSML 0x1p+600
#define WR_BLUE_SBIG 0x1p-600

/* The norm from the three sums (LAPACK 3.10's combination): NaN when the
 * medium sum is NaN (a NaN element), +inf when the big one is. */
static inline double wr_blue_finish(double asml, double amed, double abig)
{
    double scl, sumsq;
    if (abig > 0) {
        if (amed > 0 || amed != amed) abig += (amed * WR_BLUE_SBIG) * WR_BLUE_SBIG;
        scl = 1 / WR_BLUE_SBIG;
        sumsq = abig;
    } else if (asml > 0) {
        if (amed > 0 || amed != amed) {
            const double ymed = sqrt(amed), ysml = sqrt(asml) / WR_BLUE_SSML;
            const double ymin = ysml > ymed ? ymed : ysml, ymax = ysml > ymed ? ysml : ymed;
            const double q = ymin / ymax;
            scl = 1;
            sumsq = ymax * ymax * (1 + q * q);
        } else {
            scl = 1 / WR_BLUE_SSML;
            sumsq = asml;
        }
    } else {
        scl = 1;
        sumsq = amed;
    }
    return scl * sqrt(sumsq);
}

#endif /* WR_BLUE_H */
