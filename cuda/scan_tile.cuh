/*
 * scan_tile.cuh -- a scan tile in a shared-memory stage (not installed): its
 * geometry for a policy, where each 16-byte chunk lives (swizzled, or in
 * place and permuted in registers), the copy of a tile into a stage, and a
 * squad thread's reads and writes of its items.
 */
#ifndef WRCUDA_SCAN_TILE_CUH
#define WRCUDA_SCAN_TILE_CUH

#include "kernel_common.cuh"
#include "ptx_async.cuh"

namespace wrcuda {

/* A tile of policy P's tile_bytes: `items` elements per squad thread, in
 * `chunks` chunks of 16 bytes (V elements each). */
template <class P, typename T> struct tile_shape {
    static constexpr int squad_threads = P::squad * 32;
    static constexpr size_t elems = P::tile_bytes / sizeof(T);
    static constexpr int items = (int)(elems / squad_threads);
    static constexpr int V = 16 / sizeof(T);
    static constexpr int chunks = items / V;  /* per squad thread */
    static constexpr int shift = chunks == 8 ? 3 : chunks == 16 ? 4 : 5;
    static_assert(chunks == 8 || chunks == 16 || chunks == 32, "8, 16 or 32 chunks per thread");
};

/* whether tiles come in by bulk copies (policy P, sm_90 and up) */
template <class P> __host__ __device__ constexpr bool bulk_loads()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    return false;
#else
    return P::bulk_copies;
#endif
}

/* Shared layout of a stage: 16-byte chunk c of the tile lives at chunk
 * swz(c).  A squad thread reads its `chunks` consecutive chunks one at a
 * time, so the 8 threads of one 16-byte access phase read chunks `chunks`
 * apart; the XOR with (c / chunks) % 8 spreads them over all 32 banks.
 * Consecutive chunks (the copies in and out) stay 8 to a bank-free group. */
template <class W> __device__ __forceinline__ unsigned swz(unsigned c)
{
    return c ^ ((c >> W::shift) & 7u);
}

/* where chunk c of the tile lives in the stage: swizzled, or in place when
 * bulk copies fill it (the squads then read the same conflict-free
 * addresses and put the chunks back in order in registers: xor_perm) */
template <class P, class W> __device__ __forceinline__ unsigned phys(unsigned c)
{
    return bulk_loads<P>() ? c : swz<W>(c);
}

/* y[i] <- y[i ^ m] for m < 8, by three stages of selects (m differs from
 * lane to lane, so no branches) */
template <class W, typename T> __device__ __forceinline__ void xor_perm(vec<T> (&y)[W::chunks], unsigned m)
{
#pragma unroll
    for (int b = 0; b < 3; b++) {
        const bool f = (m >> b) & 1u;
#pragma unroll
        for (int i = 0; i < W::chunks; i++) {
            if (i & (1 << b)) continue;
            const vec<T> u = y[i], w = y[i | (1 << b)];
#pragma unroll
            for (int j = 0; j < W::V; j++) {
                y[i].v[j] = f ? w.v[j] : u.v[j];
                y[i | (1 << b)].v[j] = f ? u.v[j] : w.v[j];
            }
        }
    }
}

/* 16-byte chunk i of this squad thread's part of the stage (r: its rank) */
template <class W, typename T> __device__ __forceinline__ vec<T> &chunk(T *stage, int r, int i)
{
    return reinterpret_cast<vec<T> *>(stage)[swz<W>((unsigned)(r * W::chunks + i))];
}

/* this squad thread's items, in tile order */
template <class P, typename T>
__device__ __forceinline__ void read_items(T (&x)[tile_shape<P, T>::items], T *stage, int r)
{
    typedef tile_shape<P, T> W;
    constexpr int V = W::V;
    vec<T> y[W::chunks];
#pragma unroll
    for (int i = 0; i < W::chunks; i++) y[i] = chunk<W>(stage, r, i);
    if (bulk_loads<P>()) xor_perm<W>(y, (unsigned)r & 7u);
#pragma unroll
    for (int i = 0; i < W::chunks; i++)
#pragma unroll
        for (int j = 0; j < V; j++) x[i * V + j] = y[i].v[j];
}

/* Load warp: copy tile t into the stage, 16-byte cp.async when the tile is
 * whole and aligned (`whole`), else element by element up to n.  Past n a
 * partial tile's stage holds whatever it held: the reduce squad takes the
 * neutral element there (past_n), the scan squad stores nothing from there
 * (filling the rest of the stage, one element per lane at a time, would
 * take the load warp microseconds for the last tile of a scan). */
template <class P, typename T>
__device__ __forceinline__ void stage_tile(T *stage, const T *in, size_t n, size_t t, bool whole, int lane)
{
    typedef tile_shape<P, T> W;
    const size_t base = t * W::elems;
    if (whole) {
        const vec<T> *src = reinterpret_cast<const vec<T> *>(in + base);
        vec<T> *vs = reinterpret_cast<vec<T> *>(stage);
#pragma unroll 8
        for (unsigned c = lane; c < W::elems / W::V; c += 32) cp_async_16(smem_addr(vs + swz<W>(c)), src + c);
    } else {
        const unsigned lim = (unsigned)(n - base < W::elems ? n - base : W::elems);
        for (unsigned e = lane; e < lim; e += 32) {
            T *dst = stage + phys<P, W>(e / W::V) * W::V + e % W::V;
            cp_async_elem<sizeof(T)>(smem_addr(dst), in + base + e);
        }
    }
}

/* The elements of a partial tile past n, in a squad thread's items (x[k] is
 * element r * items + k of the tile, in either layout of the stage: see
 * read_items), replaced by the neutral element. */
template <class P, typename F, typename T>
__device__ __forceinline__ void past_n(T (&x)[tile_shape<P, T>::items], size_t n, size_t t, int r)
{
    typedef tile_shape<P, T> W;
    constexpr int I = W::items;
    const size_t base = t * W::elems;
    if (base + W::elems <= n) return;
    const size_t lim = n - base;
#pragma unroll
    for (int k = 0; k < I; k++)
        if ((size_t)r * I + k >= lim) x[k] = F::neutral();
}

/* this squad thread's outputs (out(k) for its items, in tile order) into
 * its part of the stage, in the stage's layout */
template <class P, typename T, typename Out>
__device__ __forceinline__ void put_items(T *stage, int r, Out out)
{
    typedef tile_shape<P, T> W;
    constexpr int V = W::V;
    if constexpr (bulk_loads<P>()) {
        /* all of them first: they go out in the order the stage wants */
        vec<T> v[W::chunks];
#pragma unroll
        for (int i = 0; i < W::chunks; i++)
#pragma unroll
            for (int j = 0; j < V; j++) v[i].v[j] = out(i * V + j);
        xor_perm<W>(v, (unsigned)r & 7u);
#pragma unroll
        for (int i = 0; i < W::chunks; i++) chunk<W>(stage, r, i) = v[i];
    } else {
#pragma unroll
        for (int i = 0; i < W::chunks; i++) {
            vec<T> v;
#pragma unroll
            for (int j = 0; j < V; j++) v.v[j] = out(i * V + j);
            chunk<W>(stage, r, i) = v;
        }
    }
}

/* the outputs of this thread's elements (x: their prefixes inside the
 * thread) into its part of the stage, through f.  (put_items with its
 * out() written in: through put_items, nvcc orders two moves of the float
 * sums' code differently, and the plain scan's code is kept as measured.) */
template <class P, typename T, typename M>
__device__ __forceinline__ void put_outputs(T *stage, int r, const T (&x)[tile_shape<P, T>::items], int exclusive,
                                            T base, M f)
{
    typedef tile_shape<P, T> W;
    constexpr int V = W::V;
    auto out = [&](int k) -> T { return !exclusive ? f(x[k]) : k ? f(x[k - 1]) : base; };
    if constexpr (bulk_loads<P>()) {
        /* all of them first: they go out in the order the stage wants */
        vec<T> v[W::chunks];
#pragma unroll
        for (int i = 0; i < W::chunks; i++)
#pragma unroll
            for (int j = 0; j < V; j++) v[i].v[j] = out(i * V + j);
        xor_perm<W>(v, (unsigned)r & 7u);
#pragma unroll
        for (int i = 0; i < W::chunks; i++) chunk<W>(stage, r, i) = v[i];
    } else {
#pragma unroll
        for (int i = 0; i < W::chunks; i++) {
            vec<T> v;
#pragma unroll
            for (int j = 0; j < V; j++) v.v[j] = out(i * V + j);
            chunk<W>(stage, r, i) = v;
        }
    }
}

} /* namespace wrcuda */

#endif /* WRCUDA_SCAN_TILE_CUH */
