/*
 * cooperative_groups/scan.h of the kit's CPU emulation (emulation/README.md):
 * cg::inclusive_scan(group, value[, op]) and cg::exclusive_scan(group, value[, op]) over a
 * thread_block_tile or a coalesced_group, ranks in the group's order; op is cg::plus by default,
 * or CUDA's other operators, or a lambda. The exclusive scan gives the first rank a
 * value-initialized T (0 for a sum), as CUDA does. Computed with the group's shuffles
 * (cooperative_groups/kit_emu_collectives.h), so that the emulation's lockstep and checks apply
 * to each step, and errors name the line of the call.
 */
#ifndef KIT_EMU_CG_SCAN_H
#define KIT_EMU_CG_SCAN_H

#include "kit_emu_collectives.h"

namespace cooperative_groups
{

template <typename GroupT, typename T, typename Op>
KIT_EMU_HD inline auto inclusive_scan(const GroupT &g, T &&value, Op &&op, KIT_EMU_WHERE)
    -> decltype(op(value, value))
{
    kit_detail::check_collective<GroupT, T, decltype(op(value, value))>();
    return kit_detail::inclusive_scan_of(g, kit_detail::remove_qual<T>(value), op, file, line);
}

template <typename GroupT, typename T>
KIT_EMU_HD inline kit_detail::remove_qual<T> inclusive_scan(const GroupT &g, T &&value,
                                                            KIT_EMU_WHERE)
{
    plus<kit_detail::remove_qual<T>> op;
    kit_detail::check_collective<GroupT, T, T>();
    return kit_detail::inclusive_scan_of(g, kit_detail::remove_qual<T>(value), op, file, line);
}

template <typename GroupT, typename T, typename Op>
KIT_EMU_HD inline auto exclusive_scan(const GroupT &g, T &&value, Op &&op, KIT_EMU_WHERE)
    -> decltype(op(value, value))
{
    kit_detail::check_collective<GroupT, T, decltype(op(value, value))>();
    return kit_detail::exclusive_scan_of(g, kit_detail::remove_qual<T>(value), op, file, line);
}

template <typename GroupT, typename T>
KIT_EMU_HD inline kit_detail::remove_qual<T> exclusive_scan(const GroupT &g, T &&value,
                                                            KIT_EMU_WHERE)
{
    plus<kit_detail::remove_qual<T>> op;
    kit_detail::check_collective<GroupT, T, T>();
    return kit_detail::exclusive_scan_of(g, kit_detail::remove_qual<T>(value), op, file, line);
}

} // namespace cooperative_groups

#endif
