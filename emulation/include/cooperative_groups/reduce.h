/*
 * cooperative_groups/reduce.h of the kit's CPU emulation (emulation/README.md): cg::reduce(group,
 * value, op) over a thread_block_tile or a coalesced_group, with CUDA's operators (cg::plus,
 * cg::less, cg::greater, cg::bit_and, cg::bit_or, cg::bit_xor) or any function of two values of
 * the value's type (a lambda). Every thread of the group gets the result. Computed with the
 * group's shuffles (cooperative_groups/kit_emu_collectives.h), so that the emulation's lockstep
 * and checks apply to each step, and errors name the line of the call.
 */
#ifndef KIT_EMU_CG_REDUCE_H
#define KIT_EMU_CG_REDUCE_H

#include "kit_emu_collectives.h"

namespace cooperative_groups
{

template <typename GroupT, typename T, typename Op>
KIT_EMU_HD inline auto reduce(const GroupT &g, T &&value, Op &&op, KIT_EMU_WHERE)
    -> decltype(op(value, value))
{
    kit_detail::check_collective<GroupT, T, decltype(op(value, value))>();
    return kit_detail::reduce_of(g, kit_detail::remove_qual<T>(value), op, file, line);
}

} // namespace cooperative_groups

#endif
