/*
 * What cooperative_groups/reduce.h and cooperative_groups/scan.h of the kit's CPU emulation share
 * (emulation/README.md): CUDA's operators (cg::plus, cg::less, cg::greater, cg::bit_and,
 * cg::bit_or, cg::bit_xor), and the reduction and scan of a tile or coalesced group computed
 * with the group's own shuffles, so that each step is a warp-level function done in lockstep
 * and checked (a lane that never comes, a mask the block does not have) like __shfl_sync.
 *
 * The steps are CUDA's: a reduction of a tile is a butterfly of shfl_xor from Size / 2 down to
 * 1, a scan is shfl_up by 1, 2, 4... combined as op(own, received). With the same order of
 * operations, a sum of floats rounds as it does on a GPU.
 */
#ifndef KIT_EMU_CG_COLLECTIVES_H
#define KIT_EMU_CG_COLLECTIVES_H

#include "../cooperative_groups.h"

namespace cooperative_groups
{

/* ---- the operators --------------------------------------------------------------------------- */

template <typename T> struct plus {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return a + b;
    }
};

/* less gives the smaller of two values (a reduction with it is the minimum), greater the
 * larger; on a tie, the first. */
template <typename T> struct less {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return b < a ? b : a;
    }
};

template <typename T> struct greater {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return a < b ? b : a;
    }
};

template <typename T> struct bit_and {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return a & b;
    }
};

template <typename T> struct bit_or {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return a | b;
    }
};

template <typename T> struct bit_xor {
    KIT_EMU_HD T operator()(T a, T b) const
    {
        return a ^ b;
    }
};

namespace kit_detail
{

template <typename T> using remove_qual = std::remove_cv_t<std::remove_reference_t<T>>;

/* The groups that reduce and scan take, as in CUDA: tiles (of up to 32 threads here) and
 * coalesced groups. */
template <typename GroupT> struct is_warp_group : std::false_type {
};
template <unsigned int Size, typename ParentT>
struct is_warp_group<thread_block_tile<Size, ParentT>> : std::true_type {
};
template <> struct is_warp_group<coalesced_group> : std::true_type {
};

/* What CUDA refuses to compile, refused here too (with CUDA's words first). */
template <typename GroupT, typename ValueT, typename ResultT>
KIT_EMU_HD inline void check_collective()
{
    static_assert(is_warp_group<remove_qual<GroupT>>::value,
                  "This group does not exclusively represent a tile: cg::reduce and the scans "
                  "take a thread_block_tile or a coalesced_group");
    static_assert(std::is_same<remove_qual<ValueT>, remove_qual<ResultT>>::value,
                  "Operator input and output types differ: the operator must return the value's "
                  "type");
}

/* Every thread's op of the values of the ranks up to its own. shfl_up gives the value @p d ranks
 * below, or the caller's own when there is none (then it is not used). */
template <typename GroupT, typename T, typename Op>
KIT_EMU_HD inline T inclusive_scan_of(const GroupT &g, T value, Op &op, const char *file, int line)
{
    unsigned int size = g.num_threads(), rank = g.thread_rank();
    for (unsigned int d = 1; d < size; d <<= 1) {
        T below = g.shfl_up(value, d, file, line);
        if (d <= rank) {
            value = op(value, below);
        }
    }
    return value;
}

/* The same up to the rank below the caller's; the first rank gets T{} (CUDA: what it gets is a
 * value-initialized T). */
template <typename GroupT, typename T, typename Op>
KIT_EMU_HD inline T exclusive_scan_of(const GroupT &g, T value, Op &op, const char *file, int line)
{
    T inclusive = inclusive_scan_of(g, value, op, file, line);
    T below = g.shfl_up(inclusive, 1u, file, line);
    return g.thread_rank() == 0 ? T{} : below;
}

/* A butterfly over the @p width lanes of @p mask: after the step of distance d, every lane holds
 * op of the 2d lanes around it; at the end each holds the whole group's. */
template <typename T, typename Op>
KIT_EMU_HD inline T butterfly(unsigned int mask, unsigned int width, T value, Op &op,
                              const char *file, int line)
{
    for (unsigned int d = width / 2; d > 0; d /= 2) {
        value = op(value, shuffle(kit_emu::WARP_SHFL_XOR, mask, value, d, (int)width, file, line));
    }
    return value;
}

template <unsigned int Size, typename ParentT, typename T, typename Op>
KIT_EMU_HD inline T reduce_of(const thread_block_tile<Size, ParentT> &g, T value, Op &op,
                              const char *file, int line)
{
    return butterfly(group_access::mask(g), Size, value, op, file, line);
}

/* A coalesced group: a whole warp as a tile of 32; any other set of lanes by a scan, whose last
 * rank holds the total and gives it to all. */
template <typename T, typename Op>
KIT_EMU_HD inline T reduce_of(const coalesced_group &g, T value, Op &op, const char *file, int line)
{
    unsigned int mask = group_access::mask(g);
    if (mask == 0xFFFFFFFFu) {
        return butterfly(mask, 32u, value, op, file, line);
    }
    T scanned = inclusive_scan_of(g, value, op, file, line);
    return shuffle(kit_emu::WARP_SHFL_IDX, mask, scanned, 31 - __builtin_clz(mask), 32, file, line);
}

} // namespace kit_detail
} // namespace cooperative_groups

#endif
