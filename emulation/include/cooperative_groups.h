/*
 * cooperative_groups.h of the kit's CPU emulation (emulation/README.md): the grid of a
 * cooperative launch and the thread block. A grid's sync() waits until every thread of every
 * block has reached it; the emulation keeps every block's fibers alive for it, as the GPU
 * keeps every block resident. Partitions of a block (tiled_partition, coalesced groups) are
 * not modelled yet.
 */
#ifndef KIT_EMU_COOPERATIVE_GROUPS_H
#define KIT_EMU_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups
{

/** The threads of a cooperative launch. */
class grid_group
{
  public:
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        kit_emu::grid_barrier(file, line);
    }
    KIT_EMU_HD unsigned long long size() const
    {
        const kit_emu::thread_state &t = kit_emu::current("grid_group::size", __FILE__, __LINE__);
        return (unsigned long long)t.grid_dim.x * t.grid_dim.y * t.grid_dim.z * t.block_dim.x *
               t.block_dim.y * t.block_dim.z;
    }
    KIT_EMU_HD unsigned long long thread_rank() const
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::thread_rank", __FILE__, __LINE__);
        unsigned long long block =
            ((unsigned long long)t.block_idx.z * t.grid_dim.y + t.block_idx.y) * t.grid_dim.x +
            t.block_idx.x;
        unsigned long long threads =
            (unsigned long long)t.block_dim.x * t.block_dim.y * t.block_dim.z;
        return block * threads +
               ((unsigned long long)t.thread_idx.z * t.block_dim.y + t.thread_idx.y) *
                   t.block_dim.x +
               t.thread_idx.x;
    }
    KIT_EMU_HD bool is_valid() const
    {
        return true;
    }
};

/** The threads of one block. */
class thread_block
{
  public:
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        kit_emu::block_barrier(0, 0, file, line);
    }
    KIT_EMU_HD unsigned size() const
    {
        const kit_emu::thread_state &t = kit_emu::current("thread_block::size", __FILE__, __LINE__);
        return t.block_dim.x * t.block_dim.y * t.block_dim.z;
    }
    KIT_EMU_HD unsigned thread_rank() const
    {
        const kit_emu::thread_state &t =
            kit_emu::current("thread_block::thread_rank", __FILE__, __LINE__);
        return (t.thread_idx.z * t.block_dim.y + t.thread_idx.y) * t.block_dim.x + t.thread_idx.x;
    }
    KIT_EMU_HD dim3 group_index() const
    {
        const uint3 &b =
            kit_emu::current("thread_block::group_index", __FILE__, __LINE__).block_idx;
        return dim3(b.x, b.y, b.z);
    }
    KIT_EMU_HD dim3 thread_index() const
    {
        const uint3 &t =
            kit_emu::current("thread_block::thread_index", __FILE__, __LINE__).thread_idx;
        return dim3(t.x, t.y, t.z);
    }
};

KIT_EMU_HD inline grid_group this_grid()
{
    return grid_group();
}

KIT_EMU_HD inline thread_block this_thread_block()
{
    return thread_block();
}

KIT_EMU_HD inline void sync(const grid_group &g, KIT_EMU_WHERE)
{
    g.sync(file, line);
}

KIT_EMU_HD inline void sync(const thread_block &b, KIT_EMU_WHERE)
{
    b.sync(file, line);
}

} // namespace cooperative_groups

#endif
