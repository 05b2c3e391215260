/*
 * cooperative_groups.h of the kit's CPU emulation (emulation/README.md): CUDA's cooperative
 * groups, with CUDA's names, in namespace cooperative_groups.
 *
 * - grid_group (this_grid()): the threads of a cooperative launch. Its sync() waits until every
 *   thread of every block has reached it; the emulation keeps every block's fibers alive for
 *   it, as the GPU keeps every block resident.
 * - thread_block (this_thread_block()): the threads of one block; sync() is __syncthreads().
 * - thread_block_tile<N> (tiled_partition<N>(block), tiled_partition<N>(tile)): N = 1, 2, 4, 8,
 *   16 or 32 consecutive threads of the block, which lie in one warp; its collectives are the
 *   warp-level functions (kit_emu::warp_collective) with the tile's lanes as the mask and N as
 *   the width, so they are computed in lockstep and checked as __shfl_sync and friends are.
 * - coalesced_group (coalesced_threads(), binary_partition, labeled_partition, tiled_partition
 *   of one): any set of lanes of a warp, ranked in lane order; its shuffles take ranks.
 * - thread_group: what tiled_partition(parent, n) returns, and what every group converts to.
 *
 * Every member that waits takes the caller's file and line (KIT_EMU_WHERE), so that an error
 * names the student's line, not this header's. The reductions and scans are in
 * cooperative_groups/reduce.h and cooperative_groups/scan.h, as in CUDA.
 *
 * Not modelled (each fails to compile, never a silent wrong answer): tiles of more than 32
 * threads (CUDA's block_tile_memory), cluster groups, memcpy_async.
 */
#ifndef KIT_EMU_COOPERATIVE_GROUPS_H
#define KIT_EMU_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

namespace cooperative_groups
{

class thread_group;
class grid_group;
class thread_block;
class coalesced_group;
template <unsigned int Size, typename ParentT = void> class thread_block_tile;

/* The emulation's own helpers: not CUDA's API (CUDA has a namespace `details` of its own). */
namespace kit_detail
{

/* What get_type() gives, with CUDA's numbers: a tile is a coalesced group in CUDA too. */
constexpr unsigned int coalesced_group_id = 1;
constexpr unsigned int grid_group_id = 3;
constexpr unsigned int thread_block_id = 4;

/* The caller's linear index in its block, as CUDA ranks a block's threads (x fastest). */
KIT_EMU_HD inline unsigned int block_rank(const kit_emu::thread_state &t)
{
    return (t.thread_idx.z * t.block_dim.y + t.thread_idx.y) * t.block_dim.x + t.thread_idx.x;
}

KIT_EMU_HD inline unsigned int block_threads(const kit_emu::thread_state &t)
{
    return t.block_dim.x * t.block_dim.y * t.block_dim.z;
}

/* The caller's lane: its index in the block modulo 32, as the warp-level functions count. */
KIT_EMU_HD inline unsigned int lane(const char *what)
{
    return block_rank(kit_emu::current(what, __FILE__, __LINE__)) % 32u;
}

/* The lanes below @p lane (CUDA's %lanemask_lt). */
KIT_EMU_HD inline unsigned int lanes_below(unsigned int lane)
{
    return (1u << lane) - 1u;
}

/* @p count lanes from lane 0 (count 0 to 32). */
KIT_EMU_HD inline unsigned int low_lanes(unsigned int count)
{
    return count >= 32u ? 0xFFFFFFFFu : (1u << count) - 1u;
}

/* The lane of rank @p rank among the lanes of @p mask (ranked in lane order), or 32 if the mask
 * has no such rank. */
KIT_EMU_HD inline unsigned int lane_of_rank(unsigned int mask, unsigned int rank)
{
    for (unsigned int m = mask, r = 0; m; m &= m - 1u, r++) {
        if (r == rank) {
            return (unsigned int)__builtin_ctz(m);
        }
    }
    return 32u;
}

/* The bits of @p lanes (lanes of the warp) packed into ranks of @p mask: bit r is set when the
 * lane of rank r is in @p lanes. What a coalesced group's ballot and match give. */
KIT_EMU_HD inline unsigned int pack_lanes(unsigned int lanes, unsigned int mask)
{
    unsigned int packed = 0, rank = 0;
    for (unsigned int m = mask; m; m &= m - 1u, rank++) {
        if (lanes & (m & ~(m - 1u))) {
            packed |= 1u << rank;
        }
    }
    return packed;
}

/**
 * A shuffle (@p op: kit_emu::WARP_SHFL_IDX, _UP, _DOWN or _XOR) of a value of any trivially
 * copyable type over the lanes of @p mask, as CUDA's groups shuffle any such type: a value of
 * more than 8 bytes goes in pieces of 8, each a warp-level function of its own, so that each is
 * computed in lockstep and checked like __shfl_sync.
 */
template <typename T>
KIT_EMU_HD inline T shuffle(int op, unsigned int mask, const T &value, long long param, int width,
                            const char *file, int line)
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "a group's shuffle takes a trivially copyable type, as in CUDA");
    T result = value; /* written over piece by piece (T need not have a default constructor) */
    unsigned char *bytes = reinterpret_cast<unsigned char *>(&result);
    for (size_t at = 0; at < sizeof(T); at += sizeof(unsigned long long)) {
        size_t n = sizeof(T) - at < sizeof(unsigned long long) ? sizeof(T) - at
                                                               : sizeof(unsigned long long);
        unsigned long long piece = 0;
        memcpy(&piece, bytes + at, n);
        piece = kit_emu::warp_collective(op, mask, piece, (unsigned)n, param, width, file, line);
        memcpy(bytes + at, &piece, n);
    }
    return result;
}

/* A vote or match over the lanes of @p mask: the warp's answer, lanes as bits. */
KIT_EMU_HD inline unsigned long long vote(int op, unsigned int mask, unsigned long long value,
                                          unsigned int bytes, const char *file, int line)
{
    return kit_emu::warp_collective(op, mask, value, bytes, 0, 32, file, line);
}

template <typename T> KIT_EMU_HD inline void check_match_type()
{
    static_assert(std::is_arithmetic<T>::value || std::is_pointer<T>::value,
                  "match_any and match_all take an arithmetic value, as in CUDA");
    static_assert(sizeof(T) <= sizeof(unsigned long long), "match_any takes at most 8 bytes");
}

/* Builds groups the way CUDA's factory functions do; the groups' constructors are not public. */
struct group_access;

} // namespace kit_detail

/**
 * Any group: the type every group converts to, and what tiled_partition(parent, n) returns.
 * It holds what each kind of group needs and dispatches on the kind, as CUDA's does, so that
 * a tile or a block passed as a thread_group still syncs and ranks as itself.
 */
class thread_group
{
  protected:
    friend struct kit_detail::group_access;

    unsigned int type_;      /* CUDA's get_type() number */
    unsigned int mask_;      /* a coalesced group's (or tile's) lanes of the caller's warp */
    unsigned int meta_rank_; /* its rank among the groups its parent was cut into */
    unsigned int meta_size_; /* how many groups its parent was cut into */
    bool tiled_;             /* the lanes are a tile (consecutive, aligned to its size) */

    KIT_EMU_HD explicit thread_group(unsigned int type, unsigned int mask = 0,
                                     unsigned int meta_rank = 0, unsigned int meta_size = 1,
                                     bool tiled = false)
        : type_(type), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size), tiled_(tiled)
    {
    }

  public:
    KIT_EMU_HD unsigned long long num_threads() const
    {
        const kit_emu::thread_state &t =
            kit_emu::current("thread_group::num_threads", __FILE__, __LINE__);
        switch (type_) {
        case kit_detail::grid_group_id:
            return (unsigned long long)t.grid_dim.x * t.grid_dim.y * t.grid_dim.z *
                   kit_detail::block_threads(t);
        case kit_detail::thread_block_id:
            return kit_detail::block_threads(t);
        default:
            return (unsigned long long)__builtin_popcount(mask_);
        }
    }
    KIT_EMU_HD unsigned long long size() const
    {
        return num_threads();
    }
    KIT_EMU_HD unsigned long long thread_rank() const
    {
        const kit_emu::thread_state &t =
            kit_emu::current("thread_group::thread_rank", __FILE__, __LINE__);
        switch (type_) {
        case kit_detail::grid_group_id: {
            unsigned long long block =
                ((unsigned long long)t.block_idx.z * t.grid_dim.y + t.block_idx.y) * t.grid_dim.x +
                t.block_idx.x;
            return block * kit_detail::block_threads(t) + kit_detail::block_rank(t);
        }
        case kit_detail::thread_block_id:
            return kit_detail::block_rank(t);
        default:
            return (unsigned long long)__builtin_popcount(
                mask_ & kit_detail::lanes_below(kit_detail::block_rank(t) % 32u));
        }
    }
    /* The group's barrier: grid.sync(), __syncthreads(), or __syncwarp() of its lanes. */
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        switch (type_) {
        case kit_detail::grid_group_id:
            kit_emu::grid_barrier(file, line);
            break;
        case kit_detail::thread_block_id:
            kit_emu::block_barrier(0, 0, file, line);
            break;
        default:
            kit_emu::warp_collective(kit_emu::WARP_SYNC, mask_, 0, 0, 0, 32, file, line);
        }
    }
    KIT_EMU_HD unsigned int get_type() const
    {
        return type_;
    }
};

/** The threads of a cooperative launch (cudaLaunchCooperativeKernel). */
class grid_group : public thread_group
{
    friend struct kit_detail::group_access;
    KIT_EMU_HD grid_group() : thread_group(kit_detail::grid_group_id) {}

  public:
    static constexpr unsigned int _group_id = kit_detail::grid_group_id;

    /* On a GPU, false outside a cooperative launch. The emulation cannot tell a kernel how it
     * was launched; its grid.sync() outside a cooperative launch is reported instead. */
    KIT_EMU_HD bool is_valid() const
    {
        return true;
    }
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        kit_emu::grid_barrier(file, line);
    }
    KIT_EMU_HD static dim3 dim_blocks()
    {
        const dim3 &g = kit_emu::current("grid_group::dim_blocks", __FILE__, __LINE__).grid_dim;
        return dim3(g.x, g.y, g.z);
    }
    KIT_EMU_HD static dim3 group_dim()
    {
        return dim_blocks();
    }
    KIT_EMU_HD static unsigned long long num_blocks()
    {
        const dim3 &g = kit_emu::current("grid_group::num_blocks", __FILE__, __LINE__).grid_dim;
        return (unsigned long long)g.x * g.y * g.z;
    }
    KIT_EMU_HD static dim3 block_index()
    {
        const uint3 &b = kit_emu::current("grid_group::block_index", __FILE__, __LINE__).block_idx;
        return dim3(b.x, b.y, b.z);
    }
    KIT_EMU_HD static unsigned long long block_rank()
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::block_rank", __FILE__, __LINE__);
        return ((unsigned long long)t.block_idx.z * t.grid_dim.y + t.block_idx.y) * t.grid_dim.x +
               t.block_idx.x;
    }
    KIT_EMU_HD static unsigned long long num_threads()
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::num_threads", __FILE__, __LINE__);
        return num_blocks() * kit_detail::block_threads(t);
    }
    KIT_EMU_HD static unsigned long long size()
    {
        return num_threads();
    }
    KIT_EMU_HD static unsigned long long thread_rank()
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::thread_rank", __FILE__, __LINE__);
        return block_rank() * kit_detail::block_threads(t) + kit_detail::block_rank(t);
    }
    /* The threads of the grid along each dimension, and the caller's index among them. */
    KIT_EMU_HD static dim3 dim_threads()
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::dim_threads", __FILE__, __LINE__);
        return dim3(t.grid_dim.x * t.block_dim.x, t.grid_dim.y * t.block_dim.y,
                    t.grid_dim.z * t.block_dim.z);
    }
    KIT_EMU_HD static dim3 thread_index()
    {
        const kit_emu::thread_state &t =
            kit_emu::current("grid_group::thread_index", __FILE__, __LINE__);
        return dim3(t.block_idx.x * t.block_dim.x + t.thread_idx.x,
                    t.block_idx.y * t.block_dim.y + t.thread_idx.y,
                    t.block_idx.z * t.block_dim.z + t.thread_idx.z);
    }
};

/** The threads of one block. */
class thread_block : public thread_group
{
    friend struct kit_detail::group_access;
    KIT_EMU_HD thread_block() : thread_group(kit_detail::thread_block_id) {}

  public:
    static constexpr unsigned int _group_id = kit_detail::thread_block_id;

    KIT_EMU_HD static void sync(KIT_EMU_WHERE)
    {
        kit_emu::block_barrier(0, 0, file, line);
    }
    /* CUDA's split barrier. Here the arrival does nothing and the wait is a whole barrier, as
     * CUDA itself does it before sm_90: every answer a GPU may give, this gives too; what a
     * thread does between its arrival and its wait overlaps with nothing. */
    struct arrival_token {
    };
    KIT_EMU_HD arrival_token barrier_arrive() const
    {
        return arrival_token();
    }
    KIT_EMU_HD void barrier_wait(arrival_token &&, KIT_EMU_WHERE) const
    {
        kit_emu::block_barrier(0, 0, file, line);
    }
    KIT_EMU_HD static unsigned int num_threads()
    {
        return kit_detail::block_threads(
            kit_emu::current("thread_block::num_threads", __FILE__, __LINE__));
    }
    KIT_EMU_HD static unsigned int size()
    {
        return num_threads();
    }
    KIT_EMU_HD static unsigned int thread_rank()
    {
        return kit_detail::block_rank(
            kit_emu::current("thread_block::thread_rank", __FILE__, __LINE__));
    }
    KIT_EMU_HD static dim3 group_index()
    {
        const uint3 &b =
            kit_emu::current("thread_block::group_index", __FILE__, __LINE__).block_idx;
        return dim3(b.x, b.y, b.z);
    }
    KIT_EMU_HD static dim3 thread_index()
    {
        const uint3 &t =
            kit_emu::current("thread_block::thread_index", __FILE__, __LINE__).thread_idx;
        return dim3(t.x, t.y, t.z);
    }
    KIT_EMU_HD static dim3 dim_threads()
    {
        const dim3 &d = kit_emu::current("thread_block::dim_threads", __FILE__, __LINE__).block_dim;
        return dim3(d.x, d.y, d.z);
    }
    KIT_EMU_HD static dim3 group_dim()
    {
        return dim_threads();
    }
};

/**
 * Lanes of one warp that work together, whatever they are: those that called
 * coalesced_threads() together, or a part of a tile or of another coalesced group. A thread's
 * rank is its place among the group's lanes in lane order, and the shuffles take ranks.
 */
class coalesced_group : public thread_group
{
    friend struct kit_detail::group_access;
    KIT_EMU_HD explicit coalesced_group(unsigned int mask, unsigned int meta_rank = 0,
                                        unsigned int meta_size = 1, bool tiled = false)
        : thread_group(kit_detail::coalesced_group_id, mask, meta_rank, meta_size, tiled)
    {
    }

    /* The caller's lane. */
    KIT_EMU_HD static unsigned int my_lane()
    {
        return kit_detail::lane("coalesced_group");
    }
    /* A shuffle that reads the lane of rank @p rank (lane 31 for a rank the group does not
     * have: what a GPU reads then, a value from outside the group unless lane 31 is in it). */
    template <typename T>
    KIT_EMU_HD T read_rank(const T &value, unsigned int rank, const char *file, int line) const
    {
        unsigned int src = kit_detail::lane_of_rank(mask_, rank);
        return kit_detail::shuffle(kit_emu::WARP_SHFL_IDX, mask_, value, src < 32u ? src : 31u, 32,
                                   file, line);
    }

  public:
    static constexpr unsigned int _group_id = kit_detail::coalesced_group_id;

    KIT_EMU_HD unsigned int num_threads() const
    {
        return (unsigned int)__builtin_popcount(mask_);
    }
    KIT_EMU_HD unsigned int size() const
    {
        return num_threads();
    }
    KIT_EMU_HD unsigned int thread_rank() const
    {
        return (unsigned int)__builtin_popcount(mask_ & kit_detail::lanes_below(my_lane()));
    }
    KIT_EMU_HD unsigned int meta_group_rank() const
    {
        return meta_rank_;
    }
    KIT_EMU_HD unsigned int meta_group_size() const
    {
        return meta_size_;
    }
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        kit_emu::warp_collective(kit_emu::WARP_SYNC, mask_, 0, 0, 0, 32, file, line);
    }

    /* The value of the thread of rank @p src_rank. */
    template <typename T> KIT_EMU_HD T shfl(T var, int src_rank, KIT_EMU_WHERE) const
    {
        if (mask_ == 0xFFFFFFFFu) { /* the whole warp: ranks are lanes */
            return kit_detail::shuffle(kit_emu::WARP_SHFL_IDX, mask_, var, src_rank, 32, file,
                                       line);
        }
        return read_rank(var, (unsigned int)src_rank, file, line);
    }
    /* The value of the thread @p delta ranks below (above), or the caller's own where the group
     * has none. */
    template <typename T> KIT_EMU_HD T shfl_up(T var, unsigned int delta, KIT_EMU_WHERE) const
    {
        if (mask_ == 0xFFFFFFFFu) {
            return kit_detail::shuffle(kit_emu::WARP_SHFL_UP, mask_, var, delta, 32, file, line);
        }
        unsigned int rank = thread_rank();
        return read_rank(var, delta <= rank ? rank - delta : rank, file, line);
    }
    template <typename T> KIT_EMU_HD T shfl_down(T var, unsigned int delta, KIT_EMU_WHERE) const
    {
        if (mask_ == 0xFFFFFFFFu) {
            return kit_detail::shuffle(kit_emu::WARP_SHFL_DOWN, mask_, var, delta, 32, file, line);
        }
        unsigned int rank = thread_rank();
        return read_rank(var, delta < size() - rank ? rank + delta : rank, file, line);
    }

    KIT_EMU_HD int any(int predicate, KIT_EMU_WHERE) const
    {
        return (int)kit_detail::vote(kit_emu::WARP_ANY, mask_, predicate != 0, 4, file, line);
    }
    KIT_EMU_HD int all(int predicate, KIT_EMU_WHERE) const
    {
        return (int)kit_detail::vote(kit_emu::WARP_ALL, mask_, predicate != 0, 4, file, line);
    }
    /* Bit r: the thread of rank r has a nonzero predicate. */
    KIT_EMU_HD unsigned int ballot(int predicate, KIT_EMU_WHERE) const
    {
        unsigned int lanes = (unsigned int)kit_detail::vote(kit_emu::WARP_BALLOT, mask_,
                                                            predicate != 0, 4, file, line);
        return kit_detail::pack_lanes(lanes, mask_);
    }
    /* The ranks of the threads whose value equals the caller's. */
    template <typename T> KIT_EMU_HD unsigned int match_any(T val, KIT_EMU_WHERE) const
    {
        kit_detail::check_match_type<T>();
        unsigned int lanes = (unsigned int)kit_detail::vote(
            kit_emu::WARP_MATCH_ANY, mask_, kit_emu::warp_bits(val), sizeof(T), file, line);
        return kit_detail::pack_lanes(lanes, mask_);
    }
    /* Every rank if all threads have the same value (and @p pred 1), else 0 (and @p pred 0). */
    template <typename T> KIT_EMU_HD unsigned int match_all(T val, int &pred, KIT_EMU_WHERE) const
    {
        kit_detail::check_match_type<T>();
        unsigned long long r = kit_detail::vote(kit_emu::WARP_MATCH_ALL, mask_,
                                                kit_emu::warp_bits(val), sizeof(T), file, line);
        pred = (int)(r >> 32);
        return kit_detail::pack_lanes((unsigned int)r, mask_);
    }
};

/**
 * A tile of Size threads, 1 to 32 and a power of two: consecutive threads of the block, which
 * lie in one warp. The warp-level functions run over the tile's lanes with width Size, as
 * CUDA's tiles call them, so a tile's lanes meet only each other.
 */
template <unsigned int Size> class thread_block_tile<Size, void> : public thread_group
{
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "the emulation has tiles of 1, 2, 4, 8, 16 or 32 threads (CUDA's larger tiles "
                  "need block_tile_memory, which the emulation has not: run this on a GPU)");

    friend struct kit_detail::group_access;
    template <unsigned int, typename> friend class thread_block_tile;

    /* The lanes of the caller's tile: Size lanes from the first lane of its tile. */
    KIT_EMU_HD static unsigned int tile_mask()
    {
        return kit_detail::low_lanes(Size)
               << (kit_detail::lane("thread_block_tile") & ~(Size - 1u));
    }

  protected:
    KIT_EMU_HD thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_group(kit_detail::coalesced_group_id, tile_mask(), meta_rank, meta_size, true)
    {
    }

  public:
    static constexpr unsigned int _group_id = kit_detail::coalesced_group_id;

    KIT_EMU_HD static constexpr unsigned int num_threads()
    {
        return Size;
    }
    KIT_EMU_HD static constexpr unsigned int size()
    {
        return Size;
    }
    KIT_EMU_HD unsigned int thread_rank() const
    {
        return kit_detail::lane("thread_block_tile::thread_rank") & (Size - 1u);
    }
    KIT_EMU_HD unsigned int meta_group_rank() const
    {
        return meta_rank_;
    }
    KIT_EMU_HD unsigned int meta_group_size() const
    {
        return meta_size_;
    }
    KIT_EMU_HD void sync(KIT_EMU_WHERE) const
    {
        kit_emu::warp_collective(kit_emu::WARP_SYNC, mask_, 0, 0, 0, 32, file, line);
    }

    /* The shuffles: __shfl*_sync over the tile's lanes, with width Size. */
    template <typename T> KIT_EMU_HD T shfl(T var, int src_rank, KIT_EMU_WHERE) const
    {
        return kit_detail::shuffle(kit_emu::WARP_SHFL_IDX, mask_, var, src_rank, Size, file, line);
    }
    template <typename T> KIT_EMU_HD T shfl_up(T var, unsigned int delta, KIT_EMU_WHERE) const
    {
        return kit_detail::shuffle(kit_emu::WARP_SHFL_UP, mask_, var, delta, Size, file, line);
    }
    template <typename T> KIT_EMU_HD T shfl_down(T var, unsigned int delta, KIT_EMU_WHERE) const
    {
        return kit_detail::shuffle(kit_emu::WARP_SHFL_DOWN, mask_, var, delta, Size, file, line);
    }
    template <typename T> KIT_EMU_HD T shfl_xor(T var, unsigned int lane_mask, KIT_EMU_WHERE) const
    {
        return kit_detail::shuffle(kit_emu::WARP_SHFL_XOR, mask_, var, lane_mask, Size, file, line);
    }

    /* The votes. A ballot or match gives the tile's threads as bits 0 to Size - 1 (by rank),
     * not the warp's lanes. */
    KIT_EMU_HD int any(int predicate, KIT_EMU_WHERE) const
    {
        return (int)kit_detail::vote(kit_emu::WARP_ANY, mask_, predicate != 0, 4, file, line);
    }
    KIT_EMU_HD int all(int predicate, KIT_EMU_WHERE) const
    {
        return (int)kit_detail::vote(kit_emu::WARP_ALL, mask_, predicate != 0, 4, file, line);
    }
    KIT_EMU_HD unsigned int ballot(int predicate, KIT_EMU_WHERE) const
    {
        return (unsigned int)kit_detail::vote(kit_emu::WARP_BALLOT, mask_, predicate != 0, 4, file,
                                              line) >>
               __builtin_ctz(mask_);
    }
    template <typename T> KIT_EMU_HD unsigned int match_any(T val, KIT_EMU_WHERE) const
    {
        kit_detail::check_match_type<T>();
        return (unsigned int)kit_detail::vote(kit_emu::WARP_MATCH_ANY, mask_,
                                              kit_emu::warp_bits(val), sizeof(T), file, line) >>
               __builtin_ctz(mask_);
    }
    template <typename T> KIT_EMU_HD unsigned int match_all(T val, int &pred, KIT_EMU_WHERE) const
    {
        kit_detail::check_match_type<T>();
        unsigned long long r = kit_detail::vote(kit_emu::WARP_MATCH_ALL, mask_,
                                                kit_emu::warp_bits(val), sizeof(T), file, line);
        pred = (int)(r >> 32);
        return (unsigned int)r >> __builtin_ctz(mask_);
    }
};

/** The tile that tiled_partition<Size>(parent) gives: a thread_block_tile<Size> that knows its
 * parent's type, as in CUDA; it converts to thread_block_tile<Size>. */
template <unsigned int Size, typename ParentT>
class thread_block_tile : public thread_block_tile<Size, void>
{
    friend struct kit_detail::group_access;
    KIT_EMU_HD thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
        : thread_block_tile<Size, void>(meta_rank, meta_size)
    {
    }
};

namespace kit_detail
{
struct group_access {
    KIT_EMU_HD static grid_group grid()
    {
        return grid_group();
    }
    KIT_EMU_HD static thread_block block()
    {
        return thread_block();
    }
    KIT_EMU_HD static coalesced_group coalesced(unsigned int mask, unsigned int meta_rank,
                                                unsigned int meta_size, bool tiled)
    {
        return coalesced_group(mask, meta_rank, meta_size, tiled);
    }
    KIT_EMU_HD static unsigned int mask(const thread_group &g)
    {
        return g.mask_;
    }
    KIT_EMU_HD static unsigned int meta_rank(const thread_group &g)
    {
        return g.meta_rank_;
    }
    KIT_EMU_HD static unsigned int meta_size(const thread_group &g)
    {
        return g.meta_size_;
    }
    KIT_EMU_HD static bool tiled(const thread_group &g)
    {
        return g.tiled_;
    }
    /* this_thread(): a tile of one, alone among its parent's tiles, as CUDA makes it. */
    KIT_EMU_HD static thread_block_tile<1> lone()
    {
        return thread_block_tile<1>(0, 1);
    }
    KIT_EMU_HD static thread_group group(unsigned int type, unsigned int mask,
                                         unsigned int meta_rank, unsigned int meta_size, bool tiled)
    {
        return thread_group(type, mask, meta_rank, meta_size, tiled);
    }

    /* tiled_partition<Size>(block): tile k holds the block's threads k * Size to k * Size +
     * Size - 1. */
    template <unsigned int Size>
    KIT_EMU_HD static thread_block_tile<Size, thread_block> tile(const thread_block &parent)
    {
        unsigned int rank = parent.thread_rank(), threads = parent.num_threads();
        return thread_block_tile<Size, thread_block>(rank / Size, (threads + Size - 1u) / Size);
    }
    /* tiled_partition<Size>(tile): the parent's threads cut in ParentSize / Size tiles. */
    template <unsigned int Size, unsigned int ParentSize, typename GrandParentT>
    KIT_EMU_HD static thread_block_tile<Size, thread_block_tile<ParentSize, GrandParentT>>
    tile(const thread_block_tile<ParentSize, GrandParentT> &parent)
    {
        static_assert(Size < ParentSize,
                      "tiled_partition<Size>(tile): Size must be smaller than the tile's size, as "
                      "in CUDA");
        return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParentT>>(
            parent.thread_rank() / Size, ParentSize / Size);
    }
    /* Any other parent (a coalesced group, the grid, a thread_group): not in CUDA either. */
    template <unsigned int Size, typename ParentT>
    KIT_EMU_HD static thread_block_tile<Size, ParentT> tile(const ParentT &)
    {
        static_assert(sizeof(ParentT) == 0, "tiled_partition<Size>(parent): the parent must be a "
                                            "thread_block or a thread_block_tile, as in CUDA");
        return thread_block_tile<Size, ParentT>(0, 1);
    }
};

/* A tile size that tiled_partition(parent, n) cannot take (on a GPU: the kernel traps). */
[[noreturn]] KIT_EMU_HD inline void bad_tile_size(unsigned int n, const char *file, int line)
{
    kit_emu::fault(cudaErrorLaunchFailure, file, line,
                   "tiled_partition(parent, %u): the tile size must be 1, 2, 4, 8, 16 or 32 (on "
                   "a GPU the kernel traps)",
                   n);
}

/* tiled_partition(parent, n) of lanes @p mask (the parent is a coalesced group or a tile). */
KIT_EMU_HD inline coalesced_group partition_lanes(const thread_group &parent, unsigned int n,
                                                  const char *file, int line)
{
    if (n == 0 || n > 32 || (n & (n - 1u)) != 0) {
        bad_tile_size(n, file, line);
    }
    unsigned int mask = group_access::mask(parent);
    unsigned int size = (unsigned int)__builtin_popcount(mask);
    unsigned int rank = (unsigned int)parent.thread_rank();
    if (size <= n) { /* the parent is one tile already */
        return group_access::coalesced(mask, group_access::meta_rank(parent),
                                       group_access::meta_size(parent),
                                       group_access::tiled(parent));
    }
    if (group_access::tiled(parent)) {
        /* The parent's lanes are consecutive: the caller's tile is the aligned run of n lanes
         * around it (the last one shorter if the parent is). */
        unsigned int first = rank & ~(n - 1u);
        unsigned int count = size - first < n ? size - first : n;
        unsigned int tile = low_lanes(count) << (lane("tiled_partition") & ~(n - 1u));
        return group_access::coalesced(tile, rank / n, size / n, true);
    }
    /* Any lanes: the caller's tile is the lanes of ranks first to first + n - 1. */
    unsigned int first = rank & ~(n - 1u), tile = 0, r = 0;
    for (unsigned int m = mask; m; m &= m - 1u, r++) {
        if (r >= first && r < first + n) {
            tile |= m & ~(m - 1u);
        }
    }
    return group_access::coalesced(tile, rank / n, (size + n - 1u) / n, false);
}

/* tiled_partition(block, n): tile k holds the block's threads k * n to k * n + n - 1 (the last
 * tile fewer, if n does not divide the block). */
KIT_EMU_HD inline thread_group partition_block(unsigned int n, const char *file, int line)
{
    if (n == 0 || n > 32 || (n & (n - 1u)) != 0) {
        bad_tile_size(n, file, line);
    }
    const kit_emu::thread_state &t = kit_emu::current("tiled_partition", file, line);
    unsigned int rank = block_rank(t), threads = block_threads(t);
    unsigned int first = rank & ~(n - 1u);
    unsigned int count = threads - first < n ? threads - first : n;
    unsigned int tile = low_lanes(count) << ((rank % 32u) & ~(n - 1u));
    return group_access::group(coalesced_group_id, tile, rank / n, (threads + n - 1u) / n, true);
}
} // namespace kit_detail

/* ---- the groups of the calling thread -------------------------------------------------------- */

KIT_EMU_HD inline grid_group this_grid()
{
    return kit_detail::group_access::grid();
}

KIT_EMU_HD inline thread_block this_thread_block()
{
    return kit_detail::group_access::block();
}

/** The lanes of the caller's warp that call it together (__activemask(): here, those that reach
 * this line in the same round of the scheduler). */
KIT_EMU_HD inline coalesced_group coalesced_threads(KIT_EMU_WHERE)
{
    return kit_detail::group_access::coalesced(kit_emu::active_mask(file, line), 0, 1, false);
}

/** The calling thread alone, as a tile of one. */
KIT_EMU_HD inline thread_block_tile<1> this_thread()
{
    return kit_detail::group_access::lone();
}

/* ---- partitions ------------------------------------------------------------------------------ */

/** tiled_partition<Size>(block) and tiled_partition<Size>(tile): the caller's tile of Size
 * consecutive threads. */
template <unsigned int Size, typename ParentT>
KIT_EMU_HD inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent)
{
    return kit_detail::group_access::tile<Size>(parent);
}

/** tiled_partition(parent, n): the caller's tile of n threads (1 to 32, a power of two), whose
 * size is known only at run time. */
KIT_EMU_HD inline thread_group tiled_partition(const thread_group &parent, unsigned int tilesz,
                                               KIT_EMU_WHERE)
{
    switch (parent.get_type()) {
    case kit_detail::thread_block_id:
        return kit_detail::partition_block(tilesz, file, line);
    case kit_detail::coalesced_group_id:
        return kit_detail::partition_lanes(parent, tilesz, file, line);
    default:
        kit_emu::fault(cudaErrorLaunchFailure, file, line,
                       "tiled_partition of a grid_group: the parent must be a thread_block, a "
                       "tile or a coalesced group (on a GPU: undefined)");
    }
}

KIT_EMU_HD inline thread_group tiled_partition(const thread_block &parent, unsigned int tilesz,
                                               KIT_EMU_WHERE)
{
    (void)parent;
    return kit_detail::partition_block(tilesz, file, line);
}

KIT_EMU_HD inline coalesced_group tiled_partition(const coalesced_group &parent,
                                                  unsigned int tilesz, KIT_EMU_WHERE)
{
    return kit_detail::partition_lanes(parent, tilesz, file, line);
}

namespace kit_detail
{
/* binary_partition: the lanes of @p mask whose predicate is the caller's. Two groups (meta rank:
 * the predicate), or the whole group when every lane has the same predicate. */
KIT_EMU_HD inline coalesced_group partition_binary(unsigned int mask, bool pred, const char *file,
                                                   int line)
{
    unsigned int set = (unsigned int)vote(kit_emu::WARP_BALLOT, mask, pred, 4, file, line);
    if (set == 0 || set == mask) {
        return group_access::coalesced(mask, 0, 1, false);
    }
    return group_access::coalesced(pred ? set : mask & ~set, pred ? 1 : 0, 2, false);
}

/* labeled_partition: the lanes of @p mask whose label is the caller's; the groups are ranked by
 * their first lane. */
KIT_EMU_HD inline coalesced_group partition_labeled(unsigned int mask, unsigned long long label,
                                                    unsigned int bytes, const char *file, int line)
{
    unsigned int same = (unsigned int)vote(kit_emu::WARP_MATCH_ANY, mask, label, bytes, file, line);
    unsigned int leader = (unsigned int)__builtin_ctz(same);
    unsigned int me = lane("labeled_partition");
    unsigned int leaders =
        (unsigned int)vote(kit_emu::WARP_BALLOT, mask, me == leader, 4, file, line);
    return group_access::coalesced(same,
                                   (unsigned int)__builtin_popcount(leaders & lanes_below(leader)),
                                   (unsigned int)__builtin_popcount(leaders), false);
}

template <typename T> KIT_EMU_HD inline unsigned long long label_bits(T label)
{
    static_assert(std::is_integral<T>::value || std::is_pointer<T>::value,
                  "labeled_partition takes an integral or pointer label, as in CUDA");
    if constexpr (std::is_pointer<T>::value) {
        return (unsigned long long)(uintptr_t)label;
    } else {
        return kit_emu::warp_bits(label);
    }
}
} // namespace kit_detail

/** The threads of the group whose predicate equals the caller's. */
KIT_EMU_HD inline coalesced_group binary_partition(const coalesced_group &g, bool pred,
                                                   KIT_EMU_WHERE)
{
    return kit_detail::partition_binary(kit_detail::group_access::mask(g), pred, file, line);
}

template <unsigned int Size, typename ParentT>
KIT_EMU_HD inline coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &g,
                                                   bool pred, KIT_EMU_WHERE)
{
    return kit_detail::partition_binary(kit_detail::group_access::mask(g), pred, file, line);
}

/** The threads of the group whose label equals the caller's. */
template <typename Label>
KIT_EMU_HD inline coalesced_group labeled_partition(const coalesced_group &g, Label label,
                                                    KIT_EMU_WHERE)
{
    if constexpr (std::is_same<Label, bool>::value) {
        return binary_partition(g, label, file, line);
    } else {
        return kit_detail::partition_labeled(kit_detail::group_access::mask(g),
                                             kit_detail::label_bits(label), sizeof(Label), file,
                                             line);
    }
}

template <typename Label, unsigned int Size, typename ParentT>
KIT_EMU_HD inline coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &g,
                                                    Label label, KIT_EMU_WHERE)
{
    if constexpr (std::is_same<Label, bool>::value) {
        return binary_partition(g, label, file, line);
    } else {
        return kit_detail::partition_labeled(kit_detail::group_access::mask(g),
                                             kit_detail::label_bits(label), sizeof(Label), file,
                                             line);
    }
}

/* ---- the functions of any group -------------------------------------------------------------- */

template <typename GroupT> KIT_EMU_HD inline void sync(const GroupT &g, KIT_EMU_WHERE)
{
    g.sync(file, line);
}

template <typename GroupT> KIT_EMU_HD inline auto thread_rank(const GroupT &g)
{
    return g.thread_rank();
}

template <typename GroupT> KIT_EMU_HD inline auto group_size(const GroupT &g)
{
    return g.num_threads();
}

} // namespace cooperative_groups

#endif
