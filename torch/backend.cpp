// The c10d backend "shmemcomm": torch's calls become operations of the
// engine (engine.h), which runs them on libshmemcomm. This file only turns
// tensors into buffers and back, and Works into completions: validation
// happens here, on the caller's thread, so that a bad call raises at once.
#include <torch/extension.h>
#include <c10/core/CPUAllocator.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <shmem.h>
#include <shmemx.h>

#include "engine.h"
#include "heap.h"

namespace {

using c10d::OpType;
using TensorList = std::vector<at::Tensor>;

// The Store is how the ranks meet: every init_method works, no port of ours.
struct StoreBootstrap {
	c10::intrusive_ptr<c10d::Store> store;
	std::string prefix;
	uint64_t round = 0;
	shmemx_bootstrap_t boot{};
};

int store_allgather(void *ctx, const void *mine, size_t len, void *all)
{
	auto *s = static_cast<StoreBootstrap *>(ctx);

	try {
		std::string key = s->prefix + std::to_string(s->round++) + "/";
		const auto *m = static_cast<const uint8_t *>(mine);

		s->store->set(key + std::to_string(s->boot.rank), std::vector<uint8_t>(m, m + len));
		for (int r = 0; r < s->boot.size; r++) {
			auto v = s->store->get(key + std::to_string(r));

			if (v.size() != len) {
				fprintf(stderr, "shmemcomm: rank %d gave %zu bytes to the store's allgather, not %zu\n",
					r, v.size(), len);
				return -1;
			}
			memcpy(static_cast<char *>(all) + r * len, v.data(), len);
		}
		return 0;
	} catch (const std::exception &e) {
		fprintf(stderr, "shmemcomm: the torch.distributed store failed: %s\n", e.what());
		return -1;
	}
}

class ShmemcommWork : public c10d::Work {
public:
	ShmemcommWork(int rank, OpType type, const char *title, TensorList outputs)
		: Work(rank, type, title), outputs_(std::move(outputs)),
		  future_(c10::make_intrusive<at::ivalue::Future>(
			  c10::ListType::create(c10::TensorType::get())))
	{
	}

	bool isCompleted() override
	{
		std::lock_guard<std::mutex> lock(mutex_);
		return completed_;
	}

	// The waiting thread moves the operations itself (sct_engine_drive).
	bool wait(std::chrono::milliseconds timeout) override
	{
		struct Until {
			ShmemcommWork *work;
			std::chrono::steady_clock::time_point deadline;
			bool bounded;
		} until{ this, std::chrono::steady_clock::now() + timeout, timeout != kNoTimeout };

		sct_engine_drive([](void *ctx) -> int {
			auto *u = static_cast<Until *>(ctx);
			return u->work->isCompleted() ||
			       (u->bounded && std::chrono::steady_clock::now() > u->deadline);
		}, &until);
		return Work::wait(timeout);
	}

	bool isSuccess() const override
	{
		std::lock_guard<std::mutex> lock(mutex_);
		return completed_ && !exception_;
	}

	TensorList result() override
	{
		return outputs_;
	}

	c10::intrusive_ptr<c10::ivalue::Future> getFuture() override
	{
		return future_;
	}

	void complete(const char *error)
	{
		if (error) {
			auto e = std::make_exception_ptr(std::runtime_error(error));

			finish(e);
			future_->setError(e);
		} else {
			finish();
			future_->markCompleted(c10::IValue(outputs_));
		}
	}

private:
	TensorList outputs_;
	c10::intrusive_ptr<at::ivalue::Future> future_;
};

// One engine operation and what it needs until it ends: the tensors it
// reads and writes stay referenced, and @after copies results out.
struct Pending {
	sct_op op{};
	c10::intrusive_ptr<ShmemcommWork> work;	// null for the inner ops of a coalesced call
	TensorList keep;
	std::vector<int64_t> counts;		// alltoallv's four arrays, back to back
	std::function<void()> after;
};

void pending_done(sct_op *op, const char *error)
{
	std::unique_ptr<Pending> p(static_cast<Pending *>(op->ctx));
	std::string failed;

	if (!error && p->after) {
		try {
			at::NoGradGuard no_grad;
			p->after();
		} catch (const std::exception &e) {
			failed = std::string("shmemcomm: ") + op->what + ": copying the result out failed: " +
				 e.what();
			error = failed.c_str();
		}
	}
	// a waiter that drops its tensors next must find them free of us (heap_usage)
	p->after = nullptr;
	p->keep.clear();
	if (p->work)
		p->work->complete(error);
}

const char *scalar_name(at::ScalarType t)
{
	return c10::toString(t);
}

shmemx_dtype_t dtype_of(const at::Tensor &t, const char *what)
{
	TORCH_CHECK(t.device().is_cpu(), "shmemcomm: ", what, ": tensors must be on the CPU; this one is on ",
		    t.device(), " (shmemcomm moves host memory)");
	TORCH_CHECK(t.layout() == c10::kStrided, "shmemcomm: ", what, ": layout ", t.layout(),
		    " is not supported: only dense (strided) tensors are");
	switch (t.scalar_type()) {
	case at::kFloat: return SHMEMX_FP32;
	case at::kDouble: return SHMEMX_FP64;
	case at::kHalf: return SHMEMX_FP16;
	case at::kBFloat16: return SHMEMX_BF16;
	case at::kChar: return SHMEMX_INT8;
	case at::kShort: return SHMEMX_INT16;
	case at::kInt: return SHMEMX_INT32;
	case at::kLong: return SHMEMX_INT64;
	case at::kByte: return SHMEMX_UINT8;
	case at::kBool: return SHMEMX_UINT8;
	case at::kUInt16: return SHMEMX_UINT16;
	case at::kUInt32: return SHMEMX_UINT32;
	case at::kUInt64: return SHMEMX_UINT64;
	default:
		TORCH_CHECK(false, "shmemcomm: ", what, ": dtype ", scalar_name(t.scalar_type()),
			    " is not supported (float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64 and bool are)");
	}
}

shmemx_op_t op_of(const c10d::ReduceOp &reduce, at::ScalarType type, const char *what)
{
	bool is_bool = type == at::kBool;
	bool integral = c10::isIntegralType(type, true);

	switch (reduce.op_) {
	case c10d::ReduceOp::SUM:
	case c10d::ReduceOp::MAX:
		return is_bool ? SHMEMX_BOR : (reduce.op_ == c10d::ReduceOp::SUM ? SHMEMX_SUM : SHMEMX_MAX);
	case c10d::ReduceOp::PRODUCT:
	case c10d::ReduceOp::MIN:
		return is_bool ? SHMEMX_BAND : (reduce.op_ == c10d::ReduceOp::PRODUCT ? SHMEMX_PROD : SHMEMX_MIN);
	case c10d::ReduceOp::AVG:
		TORCH_CHECK(!is_bool, "shmemcomm: ", what, ": ReduceOp.AVG is not defined for bool tensors");
		return SHMEMX_AVG;
	case c10d::ReduceOp::BAND:
	case c10d::ReduceOp::BOR:
	case c10d::ReduceOp::BXOR:
		TORCH_CHECK(integral, "shmemcomm: ", what, ": bitwise ReduceOps need an integer or bool dtype, not ",
			    scalar_name(type));
		return reduce.op_ == c10d::ReduceOp::BAND ? SHMEMX_BAND :
		       reduce.op_ == c10d::ReduceOp::BOR ? SHMEMX_BOR : SHMEMX_BXOR;
	default:
		TORCH_CHECK(false, "shmemcomm: ", what, ": ReduceOp ", static_cast<int>(reduce.op_),
			    " (PREMUL_SUM or another) is not supported; SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR and BXOR are");
	}
}

void check_one(const TensorList &tensors, const char *what)
{
	TORCH_CHECK(tensors.size() == 1, "shmemcomm: ", what, ": takes one tensor per process, not ",
		    tensors.size());
}

void check_alike(const at::Tensor &t, const at::Tensor &like, const char *what)
{
	TORCH_CHECK(t.scalar_type() == like.scalar_type(), "shmemcomm: ", what, ": dtypes differ (",
		    scalar_name(t.scalar_type()), " and ", scalar_name(like.scalar_type()), ")");
	dtype_of(t, what);
}

// A tensor's elements as one contiguous buffer: itself, or a copy.
at::Tensor flat_of(const at::Tensor &t)
{
	return t.is_contiguous() ? t : t.contiguous();
}

void heap_tensors_leave_heap();

// Ordinary CPU tensors in the library's buffer pool (shmemx_buffer_malloc),
// so that collectives read and write them in place, with no staging, on the
// memfd back end too: torch's CPU allocator, replaced while the default
// group is up. Tensors of SHMEMCOMM_TORCH_POOL_MIN bytes or more come from
// the pool; smaller ones, and all where the pool is full, missing (kmod,
// where tensors are registered instead) or private (a fork child), from the
// allocator it replaced. The raw interface is kept: every DataPtr handed out
// has the one deleter, which asks the library whose block it is.
class PoolAllocator final : public c10::Allocator {
public:
	static PoolAllocator &get()
	{
		static PoolAllocator one;
		return one;
	}

	// Before init: false, with @error, for a bad SHMEMCOMM_TORCH_POOL_MIN.
	bool configure(std::string &error)
	{
		return parse_min(error);
	}

	// After init, where the job has a pool.
	void install()
	{
		size_t size, used;

		shmemx_buffer_pool_usage(&size, &used);
		if (!size || installed_)
			return;
		previous_ = c10::GetCPUAllocator();
		previous_raw_ = previous_->raw_deleter();
		c10::SetCPUAllocator(this, kPriority);
		installed_ = true;
	}

	// Before finalize: later tensors come from the allocator it replaced;
	// the pool's live tensors keep their blocks, which outlive the job.
	void uninstall()
	{
		if (!installed_)
			return;
		c10::SetCPUAllocator(previous_, kPriority);
		installed_ = false;
	}

	c10::DataPtr allocate(size_t n) override
	{
		if (n >= min_ && room_for(n)) {
			void *p = shmemx_buffer_malloc(n);

			if (p)
				return { p, p, &delete_any, c10::Device(c10::DeviceType::CPU) };
		}
		c10::DataPtr d = previous_->allocate(n);
		// re-wrapped under the one deleter, which passes it back
		if (previous_raw_ && d.get() == d.get_context() && d.get_deleter() == previous_raw_) {
			void *p = d.release_context();

			return { p, p, &delete_any, c10::Device(c10::DeviceType::CPU) };
		}
		return d;
	}

	c10::DeleterFnPtr raw_deleter() const override
	{
		return previous_raw_ ? &delete_any : nullptr;
	}

	void copy_data(void *dest, const void *src, std::size_t count) const override
	{
		default_copy_data(dest, src, count);
	}

	size_t min_bytes() const
	{
		return min_;
	}

private:
	// above the default CPU allocator's 0, so that it takes over; the same to hand back
	static constexpr uint8_t kPriority = 10;

	static void delete_any(void *p)
	{
		if (shmemx_buffer_in_pool(p))
			shmemx_buffer_free(p);
		else if (p)
			get().previous_raw_(p);
	}

	// Full: the library would say so on every call; the allocator it replaced takes it, once said.
	bool room_for(size_t n)
	{
		size_t size, used;

		shmemx_buffer_pool_usage(&size, &used);
		if (size && used <= size && n <= size - used)
			return true;
		if (size && !said_full_.exchange(true))
			fprintf(stderr, "shmemcomm: the buffer pool is full (%zu of %zu bytes in use; SHMEMCOMM_BUFFER_POOL): tensors that do not fit are allocated as without shmemcomm, and their collectives stage them\n",
				used, size);
		return false;
	}

	bool parse_min(std::string &error)
	{
		const char *text = getenv("SHMEMCOMM_TORCH_POOL_MIN");
		char *end;

		if (!text || !*text)
			return true;
		unsigned long long v = strtoull(text, &end, 10);
		unsigned long long unit = 1;
		switch (*end) {
		case 'k': case 'K': unit = 1ull << 10; end++; break;
		case 'm': case 'M': unit = 1ull << 20; end++; break;
		case 'g': case 'G': unit = 1ull << 30; end++; break;
		default: break;
		}
		if (text[0] == '-' || end == text || *end || v > (1ull << 40) / unit) {
			error = std::string("SHMEMCOMM_TORCH_POOL_MIN=") + text +
				" is not a size in bytes up to 1 TiB (a number, with k, m or g)";
			return false;
		}
		min_ = static_cast<size_t>(v * unit);
		return true;
	}

	c10::Allocator *previous_ = nullptr;
	c10::DeleterFnPtr previous_raw_ = nullptr;
	size_t min_ = 64 << 10;
	bool installed_ = false;
	std::atomic<bool> said_full_{ false };
};

class ProcessGroupShmemcomm : public c10d::Backend {
public:
	ProcessGroupShmemcomm(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
			      double timeout, std::vector<int64_t> global_ranks)
		: Backend(rank, size), timeout_(timeout)
	{
		char error[1024];
		bool world = global_ranks.empty();

		if (!world) {
			world = static_cast<int>(global_ranks.size()) == size;
			for (int i = 0; world && i < size; i++)
				world = global_ranks[i] == i;
			// a group of every rank is still a group of its own, unless it is the first
			world = world && !initialized();
		}
		boot_.store = store;
		boot_.prefix = "shmemcomm/";
		boot_.boot = shmemx_bootstrap_t{ rank, size, "the torch.distributed store", &boot_,
						 store_allgather };
		if (world) {
			TORCH_CHECK(!initialized(), "shmemcomm: a second default process group in one process: shmemcomm initializes once per process (destroy_process_group ends it for good)");
			std::string why;
			TORCH_CHECK(PoolAllocator::get().configure(why), "shmemcomm: ", why);
			TORCH_CHECK(sct_engine_start(error, sizeof(error)) == 0, "shmemcomm: ", error);
			if (sct_engine_call(init_call, this, error, sizeof(error))) {
				sct_engine_stop();
				TORCH_CHECK(false, "shmemcomm: init failed: ", error);
			}
			PoolAllocator::get().install();
			team_ = SHMEM_TEAM_WORLD;
			owns_library_ = true;
			world_timeout() = timeout_;
			initialized() = true;
		} else {
			TORCH_CHECK(initialized(), "shmemcomm: new_group with backend shmemcomm needs the default process group to use shmemcomm too");
			members_.assign(global_ranks.begin(), global_ranks.end());
			TORCH_CHECK(sct_engine_call(team_call, this, error, sizeof(error)) == 0,
				    "shmemcomm: new_group failed: ", error);
		}
	}

	~ProcessGroupShmemcomm() override
	{
		char error[1024];
		// Python drops the group holding the GIL; the engine's thread may need it
		// meanwhile, to free a tensor that Python knew, before it reaches us.
		std::unique_ptr<py::gil_scoped_release> no_gil;

		// At interpreter exit (an exception ended the script, or no
		// destroy_process_group) the other ranks may be waiting in a
		// collective this one never makes: leave without a word, and they
		// find this process gone within 0.1 s.
#if PY_VERSION_HEX >= 0x030D0000
		if (Py_IsFinalizing())
#else
		if (_Py_IsFinalizing())
#endif
			return;
		if (Py_IsInitialized() && PyGILState_Check())
			no_gil = std::make_unique<py::gil_scoped_release>();
		// after a failure the library's state is not to be trusted: no sync
		if (sct_engine_broken()) {
			if (owns_library_)
				sct_engine_stop();
			return;
		}
		// A subgroup's team is kept until finalize: Python drops groups in no
		// set order, and shmem_team_destroy is a sync of the members, which
		// could then wait on each other across groups.
		if (owns_library_) {
			if (sct_engine_call(finalize_call, this, error, sizeof(error)))
				fprintf(stderr, "shmemcomm: finalize: %s\n", error);
			sct_engine_stop();
		}
	}

	const std::string getBackendName() const override
	{
		return "shmemcomm";
	}

	c10::intrusive_ptr<c10d::Work> broadcast(TensorList &tensors,
						 const c10d::BroadcastOptions &opts) override
	{
		const char *what = "broadcast";

		check_one(tensors, what);
		check_root(opts.rootRank, what);
		auto &t = tensors[0];
		auto p = pending(OpType::BROADCAST, what, t, tensors, opts.timeout);
		auto flat = in_place(p.get(), t);
		p->op.kind = SCT_BROADCAST;
		p->op.root = static_cast<int>(opts.rootRank);
		p->op.dest = flat.data_ptr();
		p->op.src = flat.data_ptr();
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> allreduce(TensorList &tensors,
						 const c10d::AllreduceOptions &opts) override
	{
		const char *what = "allreduce";

		check_one(tensors, what);
		auto &t = tensors[0];
		auto p = pending(OpType::ALLREDUCE, what, t, tensors, opts.timeout);
		p->op.kind = SCT_ALLREDUCE;
		p->op.op = op_of(opts.reduceOp, t.scalar_type(), what);
		auto flat = in_place(p.get(), t);
		p->op.dest = flat.data_ptr();
		p->op.src = flat.data_ptr();
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> allreduce_coalesced(TensorList &tensors,
							   const c10d::AllreduceCoalescedOptions &opts) override
	{
		const char *what = "allreduce_coalesced";

		TORCH_CHECK(!tensors.empty(), "shmemcomm: ", what, ": no tensors");
		for (auto &t : tensors)
			check_alike(t, tensors[0], what);
		// one allreduce over the tensors side by side
		TensorList flats;
		for (auto &t : tensors)
			flats.push_back(t.reshape({ -1 }));
		auto packed = at::cat(flats);
		auto p = pending(OpType::ALLREDUCE_COALESCED, what, packed, tensors, opts.timeout);
		p->op.kind = SCT_ALLREDUCE;
		p->op.op = op_of(opts.reduceOp, packed.scalar_type(), what);
		p->op.dest = packed.data_ptr();
		p->op.src = packed.data_ptr();
		p->keep.push_back(packed);
		p->after = [tensors, packed]() mutable {
			int64_t at = 0;
			for (auto &t : tensors) {
				t.copy_(packed.narrow(0, at, t.numel()).view(t.sizes()));
				at += t.numel();
			}
		};
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> reduce(TensorList &tensors,
					      const c10d::ReduceOptions &opts) override
	{
		const char *what = "reduce";

		check_one(tensors, what);
		check_root(opts.rootRank, what);
		auto &t = tensors[0];
		auto p = pending(OpType::REDUCE, what, t, tensors, opts.timeout);
		p->op.kind = SCT_ALLREDUCE;
		p->op.op = op_of(opts.reduceOp, t.scalar_type(), what);
		if (getRank() == opts.rootRank) {
			auto flat = in_place(p.get(), t);
			p->op.dest = flat.data_ptr();
			p->op.src = flat.data_ptr();
		} else {
			// the others keep their tensor as it was
			auto src = flat_of(t);
			auto scratch = at::empty_like(src);
			p->keep.insert(p->keep.end(), { src, scratch });
			p->op.src = src.data_ptr();
			p->op.dest = scratch.data_ptr();
		}
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> allgather(std::vector<TensorList> &outputs, TensorList &inputs,
						 const c10d::AllgatherOptions &opts) override
	{
		const char *what = "allgather";

		check_one(inputs, what);
		TORCH_CHECK(outputs.size() == 1, "shmemcomm: ", what, ": takes one output list per process");
		check_blocks(outputs[0], inputs[0], what);
		return gather_into(OpType::ALLGATHER, what, outputs[0], inputs[0], opts.timeout, true);
	}

	c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
						       const c10d::AllgatherOptions &opts) override
	{
		const char *what = "all_gather_into_tensor";

		check_alike(output, input, what);
		check_whole(output, input, what, "the output");
		auto p = pending(OpType::_ALLGATHER_BASE, what, input, { output }, opts.timeout);
		fill_allgather(p.get(), output, input);
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<TensorList> &outputs,
							   TensorList &inputs,
							   const c10d::AllgatherOptions &opts) override
	{
		const char *what = "allgather_coalesced";

		TORCH_CHECK(outputs.size() == inputs.size(), "shmemcomm: ", what, ": ", outputs.size(),
			    " output lists for ", inputs.size(), " inputs");
		c10::intrusive_ptr<c10d::Work> last;
		for (size_t i = 0; i < inputs.size(); i++) {
			check_blocks(outputs[i], inputs[i], what);
			last = gather_into(OpType::ALLGATHER_COALESCED, what, outputs[i], inputs[i],
					   opts.timeout, i + 1 == inputs.size());
		}
		return last ? last : nothing(OpType::ALLGATHER_COALESCED, what);
	}

	c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(TensorList &outputs,
								       TensorList &inputs,
								       const c10d::AllgatherOptions &opts) override
	{
		return each_pair("allgather_into_tensor_coalesced", outputs, inputs, opts.timeout, true,
				 [&](Pending *p, size_t i) { fill_allgather(p, outputs[i], inputs[i]); });
	}

	c10::intrusive_ptr<c10d::Work> gather(std::vector<TensorList> &outputs, TensorList &inputs,
					      const c10d::GatherOptions &opts) override
	{
		const char *what = "gather";

		check_one(inputs, what);
		check_root(opts.rootRank, what);
		bool root = getRank() == opts.rootRank;
		if (root) {
			TORCH_CHECK(outputs.size() == 1, "shmemcomm: ", what, ": the root takes one output list");
			check_blocks(outputs[0], inputs[0], what);
		} else {
			TORCH_CHECK(outputs.empty() || (outputs.size() == 1 && outputs[0].empty()),
				    "shmemcomm: ", what, ": only the root (rank ", opts.rootRank,
				    ") passes an output list");
			dtype_of(inputs[0], what);
		}
		// every member gathers; only the root copies out
		TensorList none;
		return gather_into(OpType::GATHER, what, root ? outputs[0] : none, inputs[0], opts.timeout,
				   true);
	}

	c10::intrusive_ptr<c10d::Work> scatter(TensorList &outputs, std::vector<TensorList> &inputs,
					       const c10d::ScatterOptions &opts) override
	{
		const char *what = "scatter";

		check_one(outputs, what);
		check_root(opts.rootRank, what);
		auto &out = outputs[0];
		dtype_of(out, what);
		bool root = getRank() == opts.rootRank;
		at::Tensor all = at::empty({ out.numel() * getSize() }, out.options());
		if (root) {
			TORCH_CHECK(inputs.size() == 1, "shmemcomm: ", what, ": the root takes one input list");
			check_blocks(inputs[0], out, what);
			for (int i = 0; i < getSize(); i++)
				all.narrow(0, i * out.numel(), out.numel()).copy_(inputs[0][i].reshape({ -1 }));
		} else {
			TORCH_CHECK(inputs.empty() || (inputs.size() == 1 && inputs[0].empty()),
				    "shmemcomm: ", what, ": only the root (rank ", opts.rootRank,
				    ") passes an input list");
		}
		// the root's blocks reach everyone by one broadcast; each keeps its own
		auto p = pending(OpType::SCATTER, what, out, outputs, opts.timeout);
		p->op.kind = SCT_BROADCAST;
		p->op.root = static_cast<int>(opts.rootRank);
		p->op.dest = all.data_ptr();
		p->op.src = all.data_ptr();
		p->op.count = all.numel();
		p->keep.push_back(all);
		int me = getRank();
		p->after = [out, all, me]() mutable {
			out.copy_(all.narrow(0, me * out.numel(), out.numel()).view(out.sizes()));
		};
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> reduce_scatter(TensorList &outputs, std::vector<TensorList> &inputs,
						      const c10d::ReduceScatterOptions &opts) override
	{
		const char *what = "reduce_scatter";

		check_one(outputs, what);
		TORCH_CHECK(inputs.size() == 1, "shmemcomm: ", what, ": takes one input list per process");
		auto &out = outputs[0];
		check_blocks(inputs[0], out, what);
		TensorList flats;
		for (auto &t : inputs[0])
			flats.push_back(t.reshape({ -1 }));
		auto packed = at::cat(flats);
		auto p = pending(OpType::REDUCE_SCATTER, what, out, outputs, opts.timeout);
		fill_reduce_scatter(p.get(), out, packed, opts.reduceOp);
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
							    const c10d::ReduceScatterOptions &opts) override
	{
		const char *what = "reduce_scatter_tensor";

		check_alike(output, input, what);
		check_whole(input, output, what, "the input");
		auto p = pending(OpType::_REDUCE_SCATTER_BASE, what, output, { output }, opts.timeout);
		fill_reduce_scatter(p.get(), output, flat_of(input), opts.reduceOp);
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(TensorList &outputs, TensorList &inputs,
								       const c10d::ReduceScatterOptions &opts) override
	{
		return each_pair("reduce_scatter_tensor_coalesced", outputs, inputs, opts.timeout, false,
				 [&](Pending *p, size_t i) {
					 fill_reduce_scatter(p, outputs[i], flat_of(inputs[i]), opts.reduceOp);
				 });
	}

	c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
						     std::vector<int64_t> &output_splits,
						     std::vector<int64_t> &input_splits,
						     const c10d::AllToAllOptions &opts) override
	{
		const char *what = "all_to_all_single";
		int n = getSize();

		check_alike(output, input, what);
		auto p = pending(OpType::ALLTOALL_BASE, what, output, { output }, opts.timeout);
		auto src = flat_of(input);
		auto dest = in_place_out(p.get(), output);
		p->keep.push_back(src);
		p->op.src = src.data_ptr();
		p->op.dest = dest.data_ptr();
		if (output_splits.empty() && input_splits.empty()) {
			TORCH_CHECK(input.numel() % n == 0 && output.numel() == input.numel(), "shmemcomm: ",
				    what, ": without split sizes, input and output need the same number of elements, divisible by ",
				    n, " (they have ", input.numel(), " and ", output.numel(), ")");
			p->op.kind = SCT_ALLTOALL;
			p->op.count = input.numel() / n;
			return submit(std::move(p));
		}
		// split sizes count rows along dimension 0
		auto row = [](const at::Tensor &t) { return t.dim() ? t.numel() / std::max<int64_t>(t.size(0), 1) : 1; };
		std::vector<int64_t> in(input_splits), out(output_splits);
		if (in.empty())
			in.assign(n, input.dim() ? input.size(0) / n : 0);
		if (out.empty())
			out.assign(n, output.dim() ? output.size(0) / n : 0);
		TORCH_CHECK(static_cast<int>(in.size()) == n && static_cast<int>(out.size()) == n,
			    "shmemcomm: ", what, ": split sizes need ", n, " entries (got ", in.size(), " and ",
			    out.size(), ")");
		fill_alltoallv(p.get(), in, row(input), input.numel(), out, row(output), output.numel(), what);
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> alltoall(TensorList &outputs, TensorList &inputs,
						const c10d::AllToAllOptions &opts) override
	{
		const char *what = "all_to_all";
		int n = getSize();

		TORCH_CHECK(static_cast<int>(inputs.size()) == n && static_cast<int>(outputs.size()) == n,
			    "shmemcomm: ", what, ": needs ", n, " input and output tensors (got ", inputs.size(),
			    " and ", outputs.size(), ")");
		std::vector<int64_t> in, out;
		TensorList in_flat, out_flat;
		for (int i = 0; i < n; i++) {
			check_alike(inputs[i], inputs[0], what);
			check_alike(outputs[i], inputs[0], what);
			in.push_back(inputs[i].numel());
			out.push_back(outputs[i].numel());
			in_flat.push_back(inputs[i].reshape({ -1 }));
		}
		auto src = at::cat(in_flat);
		int64_t total = 0;
		for (auto c : out)
			total += c;
		auto dest = at::empty({ total }, inputs[0].options());
		auto p = pending(OpType::ALLTOALL, what, inputs[0], outputs, opts.timeout);
		p->keep.insert(p->keep.end(), { src, dest });
		p->op.src = src.data_ptr();
		p->op.dest = dest.data_ptr();
		fill_alltoallv(p.get(), in, 1, src.numel(), out, 1, total, what);
		p->after = [outputs, dest]() mutable {
			int64_t at = 0;
			for (auto &t : outputs) {
				t.copy_(dest.narrow(0, at, t.numel()).view(t.sizes()));
				at += t.numel();
			}
		};
		return submit(std::move(p));
	}

	c10::intrusive_ptr<c10d::Work> send(TensorList &tensors, int dst, int tag) override
	{
		return point_to_point(OpType::SEND, "send", tensors, dst, tag);
	}

	c10::intrusive_ptr<c10d::Work> recv(TensorList &tensors, int src, int tag) override
	{
		return point_to_point(OpType::RECV, "recv", tensors, src, tag);
	}

	c10::intrusive_ptr<c10d::Work> recvAnysource(TensorList &, int) override
	{
		TORCH_CHECK(false, "shmemcomm: recv without a source (recvAnysource) is not supported: name the sending rank");
	}

	c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override
	{
		auto p = std::make_unique<Pending>();

		p->work = c10::make_intrusive<ShmemcommWork>(getRank(), OpType::BARRIER, "shmemcomm:barrier",
							     TensorList{});
		p->op.kind = SCT_BARRIER;
		p->op.what = "barrier";
		p->op.team = team_;
		p->op.timeout = seconds(opts.timeout);
		return submit(std::move(p));
	}

private:
	static bool &initialized()
	{
		static bool library_up = false;
		return library_up;
	}

	static const char *init_call(void *ctx)
	{
		auto *self = static_cast<ProcessGroupShmemcomm *>(ctx);
		shmemx_init_attr_t attr{};

		attr.timeout_seconds = self->timeout_;
		attr.bootstrap = &self->boot_.boot;
		static char error[1024];
		if (shmemx_try_init_attr(&attr, error, sizeof(error)))
			return error;
		sct_engine_fit_cores(shmem_team_n_pes(SHMEM_TEAM_SHARED));
		return sct_p2p_setup(error, sizeof(error)) ? error : nullptr;
	}

	static const char *team_call(void *ctx)
	{
		auto *self = static_cast<ProcessGroupShmemcomm *>(ctx);

		if (shmemx_team_create(self->members_.data(), static_cast<int>(self->members_.size()),
				       &self->boot_.boot, &self->team_))
			return "shmemx_team_create failed (its message is above)";
		return nullptr;
	}

	static const char *finalize_call(void *)
	{
		PoolAllocator::get().uninstall();
		heap_tensors_leave_heap();
		shmem_finalize();
		return nullptr;
	}

	c10::intrusive_ptr<c10d::Work> point_to_point(OpType type, const char *what, TensorList &tensors,
						      int peer, int tag)
	{
		check_one(tensors, what);
		TORCH_CHECK(peer >= 0 && peer < getSize() && peer != getRank(), "shmemcomm: ", what,
			    ": rank ", peer, " is not another rank of this group (0..", getSize() - 1,
			    ", this is ", getRank(), ")");
		auto &t = tensors[0];
		auto p = pending(type, what, t, tensors, c10d::kUnsetTimeout);
		p->op.kind = type == OpType::SEND ? SCT_SEND : SCT_RECV;
		p->op.peer = members_.empty() ? peer : members_[peer];
		p->op.tag = tag;
		if (type == OpType::SEND) {
			auto src = flat_of(t);
			p->keep.push_back(src);
			p->op.src = src.data_ptr();
		} else {
			p->op.dest = in_place_out(p.get(), t).data_ptr();
		}
		return submit(std::move(p));
	}

	double seconds(std::chrono::milliseconds t) const
	{
		return t == c10d::kUnsetTimeout ? timeout_ : static_cast<double>(t.count()) / 1000.0;
	}

	void check_root(int64_t root, const char *what) const
	{
		TORCH_CHECK(root >= 0 && root < getSize(), "shmemcomm: ", what, ": root ", root,
			    " is not a rank of this group (0..", getSize() - 1, ")");
	}

	// @whole (named @name in the message) holds one @block per rank
	void check_whole(const at::Tensor &whole, const at::Tensor &block, const char *what,
			 const std::string &name) const
	{
		TORCH_CHECK(whole.numel() == block.numel() * getSize(), "shmemcomm: ", what, ": ", name,
			    " has ", whole.numel(), " elements, not ", getSize(), " x ", block.numel());
	}

	void check_blocks(const TensorList &blocks, const at::Tensor &like, const char *what) const
	{
		TORCH_CHECK(static_cast<int>(blocks.size()) == getSize(), "shmemcomm: ", what, ": ",
			    blocks.size(), " tensors in the list, not one per rank (", getSize(), ")");
		dtype_of(like, what);
		for (auto &b : blocks) {
			check_alike(b, like, what);
			TORCH_CHECK(b.numel() == like.numel(), "shmemcomm: ", what, ": a tensor of ", b.numel(),
				    " elements in the list, not ", like.numel());
		}
	}

	std::unique_ptr<Pending> pending(OpType type, const char *what, const at::Tensor &t,
					 const TensorList &outputs, std::chrono::milliseconds timeout,
					 bool with_work = true)
	{
		auto p = std::make_unique<Pending>();

		p->op.dtype = dtype_of(t, what);
		p->op.count = t.numel();
		p->op.what = what;
		p->op.team = team_;
		p->op.timeout = seconds(timeout);
		if (with_work)
			p->work = c10::make_intrusive<ShmemcommWork>(getRank(), type, what, outputs);
		return p;
	}

	// @t read and written in place: itself if contiguous, else a copy put back after
	at::Tensor in_place(Pending *p, at::Tensor t)
	{
		auto flat = flat_of(t);

		p->keep.push_back(flat);
		if (!flat.is_same(t))
			p->after = [t, flat]() mutable { t.copy_(flat); };
		return flat;
	}

	// @t only written: a copy put back after, if it is not contiguous
	at::Tensor in_place_out(Pending *p, at::Tensor t)
	{
		if (t.is_contiguous()) {
			p->keep.push_back(t);
			return t;
		}
		auto flat = at::empty(t.sizes(), t.options());
		p->keep.push_back(flat);
		p->after = [t, flat]() mutable { t.copy_(flat); };
		return flat;
	}

	c10::intrusive_ptr<c10d::Work> gather_into(OpType type, const char *what, TensorList outputs,
						   const at::Tensor &input, std::chrono::milliseconds timeout,
						   bool with_work)
	{
		auto p = pending(type, what, input, outputs, timeout, with_work);
		auto src = flat_of(input);
		auto all = at::empty({ input.numel() * getSize() }, input.options());

		p->keep.insert(p->keep.end(), { src, all });
		p->op.kind = SCT_ALLGATHER;
		p->op.src = src.data_ptr();
		p->op.dest = all.data_ptr();
		p->after = [outputs, all]() mutable {
			int64_t at = 0;
			for (auto &t : outputs) {
				t.copy_(all.narrow(0, at, t.numel()).view(t.sizes()));
				at += t.numel();
			}
		};
		auto w = p->work;
		submit(std::move(p));
		return w;
	}

	// A coalesced call of tensor pairs, @gather: each output n times its input
	// (else each input n times its output); one operation a pair, the Work on the last.
	template <typename Fill>
	c10::intrusive_ptr<c10d::Work> each_pair(const char *what, TensorList &outputs, TensorList &inputs,
						 std::chrono::milliseconds timeout, bool gather, Fill fill)
	{
		c10::intrusive_ptr<c10d::Work> last;

		TORCH_CHECK(outputs.size() == inputs.size(), "shmemcomm: ", what, ": ", outputs.size(),
			    " outputs for ", inputs.size(), " inputs");
		for (size_t i = 0; i < inputs.size(); i++) {
			const at::Tensor &whole = gather ? outputs[i] : inputs[i];
			const at::Tensor &block = gather ? inputs[i] : outputs[i];

			check_alike(outputs[i], inputs[i], what);
			check_whole(whole, block, what, (gather ? "output " : "input ") + std::to_string(i));
			auto p = pending(OpType::COALESCED, what, block, outputs, timeout,
					 i + 1 == inputs.size());
			fill(p.get(), i);
			last = submit(std::move(p));
		}
		return last ? last : nothing(OpType::COALESCED, what);
	}

	void fill_allgather(Pending *p, const at::Tensor &output, const at::Tensor &input)
	{
		auto src = flat_of(input);
		auto dest = in_place_out(p, output);

		p->keep.push_back(src);
		p->op.kind = SCT_ALLGATHER;
		p->op.src = src.data_ptr();
		p->op.dest = dest.data_ptr();
		p->op.count = input.numel();
	}

	void fill_reduce_scatter(Pending *p, const at::Tensor &output, const at::Tensor &packed,
				 const c10d::ReduceOp &reduce)
	{
		auto dest = in_place_out(p, output);

		p->keep.push_back(packed);
		p->op.kind = SCT_REDUCE_SCATTER;
		p->op.op = op_of(reduce, output.scalar_type(), p->op.what);
		p->op.src = packed.data_ptr();
		p->op.dest = dest.data_ptr();
		p->op.count = output.numel();
	}

	// the counts and offsets in elements, from split sizes in rows of @row elements
	void fill_alltoallv(Pending *p, const std::vector<int64_t> &in, int64_t in_row, int64_t in_numel,
			    const std::vector<int64_t> &out, int64_t out_row, int64_t out_numel,
			    const char *what)
	{
		int n = getSize();
		int64_t in_at = 0, out_at = 0;

		p->counts.resize(4 * n);
		for (int i = 0; i < n; i++) {
			TORCH_CHECK(in[i] >= 0 && out[i] >= 0, "shmemcomm: ", what, ": a negative split size");
			p->counts[i] = in[i] * in_row;
			p->counts[n + i] = in_at;
			p->counts[2 * n + i] = out[i] * out_row;
			p->counts[3 * n + i] = out_at;
			in_at += in[i] * in_row;
			out_at += out[i] * out_row;
		}
		TORCH_CHECK(in_at == in_numel && out_at == out_numel, "shmemcomm: ", what,
			    ": the split sizes cover ", in_at, " and ", out_at, " elements, but the tensors hold ",
			    in_numel, " and ", out_numel);
		p->op.kind = SCT_ALLTOALLV;
		p->op.send_counts = p->counts.data();
		p->op.send_offsets = p->counts.data() + n;
		p->op.recv_counts = p->counts.data() + 2 * n;
		p->op.recv_offsets = p->counts.data() + 3 * n;
	}

	c10::intrusive_ptr<c10d::Work> nothing(OpType type, const char *what)
	{
		auto p = std::make_unique<Pending>();

		p->work = c10::make_intrusive<ShmemcommWork>(getRank(), type, what, TensorList{});
		p->op.kind = SCT_NOTHING;
		p->op.what = what;
		p->op.timeout = timeout_;
		return submit(std::move(p));
	}

public:
	static c10::intrusive_ptr<c10d::Work> submit(std::unique_ptr<Pending> p)
	{
		const char *broken = sct_engine_broken();
		c10::intrusive_ptr<c10d::Work> w = p->work;

		TORCH_CHECK(!broken, broken ? broken : "");
		if (!p->op.count && p->op.kind != SCT_BARRIER && p->op.kind != SCT_ALLTOALLV &&
		    p->op.kind != SCT_SEND && p->op.kind != SCT_RECV)
			p->op.kind = SCT_NOTHING;
		p->op.done = pending_done;
		p->op.ctx = p.get();
		sct_op *op = &p.release()->op;
		if (!sct_engine_run_inline(op))
			sct_engine_submit(op);
		return w;
	}

	// the default group's timeout, for the heap's collectives; 0 before init
	static double &world_timeout()
	{
		static double seconds = 0;
		return seconds;
	}

private:
	double timeout_;
	shmem_team_t team_ = SHMEM_TEAM_INVALID;
	bool owns_library_ = false;
	std::vector<int> members_;
	StoreBootstrap boot_;
};


// Heap tensors (heap.h). Their storages are kept, weakly, so that finalize
// can move the data of those still alive into ordinary memory: the heap is
// unmapped then, and a tensor must not point into it.
std::mutex heap_storages_lock;
std::unordered_map<int, c10::weak_intrusive_ptr<c10::StorageImpl>> heap_storages;

// On the engine's thread, before shmem_finalize.
void heap_tensors_leave_heap()
{
	std::lock_guard<std::mutex> lock(heap_storages_lock);

	for (auto &[index, weak] : heap_storages) {
		size_t bytes = 0;
		void *p = sct_heap_block(index, &bytes);
		auto storage = weak.lock();

		if (!p || !storage)
			continue;
		at::DataPtr moved = c10::GetCPUAllocator()->allocate(bytes);
		memcpy(moved.get(), p, bytes);
		// the old DataPtr's deleter releases the block, as if the tensor had died
		storage->set_data_ptr_noswap(std::move(moved));
	}
	heap_storages.clear();
}

struct HeapCommit {
	std::vector<uint64_t> agreed;
	size_t bytes;
	void *ptr = nullptr;
	int index = -1;
	char error[512];
};

// shmemcomm_torch.empty: a tensor shaped @sizes, of @like's dtype, on the heap.
at::Tensor heap_empty(const std::vector<int64_t> &sizes, const at::Tensor &like)
{
	const char *what = "shmemcomm_torch.empty";
	double timeout = ProcessGroupShmemcomm::world_timeout();
	uint64_t elements = 1;

	TORCH_CHECK(timeout > 0, what, " needs the default process group on shmemcomm first (init_process_group(\"shmemcomm\"))");
	for (auto n : sizes) {
		TORCH_CHECK(n >= 0, what, ": a negative size, ", n);
		TORCH_CHECK(!n || elements <= UINT64_MAX / static_cast<uint64_t>(n), what,
			    ": the shape's elements overflow 64 bits");
		elements *= static_cast<uint64_t>(n);
	}
	size_t elem = like.element_size();
	TORCH_CHECK(elements <= SIZE_MAX / elem, what, ": ", elements, " elements of ", elem,
		    " bytes overflow the address space");

	HeapCommit c;
	c.bytes = elements * elem;
	c.agreed.resize(SCT_HEAP_AGREEMENT_WORDS);
	sct_heap_propose(c.agreed.data(), c.bytes);

	// the agreement is an allreduce of the world, with the default group's
	// timeout: a rank that never calls empty() makes the others raise
	auto p = std::make_unique<Pending>();
	p->op.kind = SCT_ALLREDUCE;
	p->op.what = "shmemcomm_torch.empty (agreeing on the heap with the other ranks)";
	p->op.team = SHMEM_TEAM_WORLD;
	p->op.dtype = SHMEMX_UINT64;
	p->op.op = SHMEMX_BAND;
	p->op.count = c.agreed.size();
	p->op.src = p->op.dest = c.agreed.data();
	p->op.timeout = timeout;
	p->work = c10::make_intrusive<ShmemcommWork>(0, OpType::ALLREDUCE, p->op.what, TensorList{});
	{
		py::gil_scoped_release no_gil;
		char error[512];

		ProcessGroupShmemcomm::submit(std::move(p))->wait();
		// every rank has the same marks now: the collective frees and the allocation
		TORCH_CHECK(sct_engine_call([](void *ctx) -> const char * {
			auto *c = static_cast<HeapCommit *>(ctx);
			// an empty tensor takes a block too, so that every tensor of empty() is on the heap
			c->index = sct_heap_commit(c->agreed.data(), c->bytes ? c->bytes : 1, &c->ptr,
						   c->error, sizeof(c->error));
			return c->index < 0 ? c->error : nullptr;
		}, &c, error, sizeof(error)) == 0, what, ": ", error);
	}
	int index = c.index;
	auto t = at::from_blob(c.ptr, sizes, [index](void *) { sct_heap_release(index); },
			       like.options());
	std::lock_guard<std::mutex> lock(heap_storages_lock);
	heap_storages.insert_or_assign(index, t.storage().getWeakStorageImpl());
	return t;
}

// This process's registration figures (shmemx_buffer_stats), read on the
// engine's thread: whether tensors off the heap were read in place.
py::dict buffer_stats()
{
	struct Read {
		shmemx_buffer_stats_t stats{};
		int err = 0;
	} r;
	char error[512];

	int failed;

	{
		// the engine's thread may need the GIL meanwhile (to free a tensor)
		py::gil_scoped_release no_gil;

		failed = sct_engine_call([](void *ctx) -> const char * {
			auto *read = static_cast<Read *>(ctx);
			read->err = shmemx_buffer_stats(&read->stats);
			return nullptr;
		}, &r, error, sizeof(error));
	}
	TORCH_CHECK(!failed, "shmemcomm: buffer_stats: ", error);
	TORCH_CHECK(r.err == 0, "shmemcomm: buffer_stats: no registration on this back end (its message is above)");
	py::dict d;
	d["misses"] = r.stats.misses;
	d["hits"] = r.stats.hits;
	d["stale"] = r.stats.stale;
	d["evictions"] = r.stats.evictions;
	d["entries"] = r.stats.entries;
	d["pinned_bytes"] = r.stats.pinned_bytes;
	d["imports"] = r.stats.imports;
	d["import_hits"] = r.stats.import_hits;
	d["mapped_bytes"] = r.stats.mapped_bytes;
	d["staged"] = r.stats.staged;
	d["pooled"] = r.stats.pooled;
	return d;
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.def("buffer_stats", &buffer_stats,
	      "This process's registration figures: tensors off the heap registered (kmod) and peers' mapped");
	m.def("transport", []() {
		char error[256];
		std::string name;
		int failed;
		{
			py::gil_scoped_release no_gil;

			failed = sct_engine_call([](void *ctx) -> const char * {
				*static_cast<std::string *>(ctx) = shmemx_transport_name();
				return nullptr;
			}, &name, error, sizeof(error));
		}
		TORCH_CHECK(!failed, "shmemcomm: transport: ", error);
		return name;
	}, "The library's back end: kmod or memfd, with +rdma across nodes");
	m.def("heap_empty", &heap_empty, "A tensor on the symmetric heap (collective over the job)");
	m.def("is_symmetric", [](const at::Tensor &t) {
		return t.has_storage() && t.storage().data() &&
		       sct_heap_contains(t.storage().data(), t.storage().nbytes());
	}, "Whether the tensor's memory is a block of the symmetric heap");
	m.def("is_pooled", [](const at::Tensor &t) {
		return t.has_storage() && t.storage().data() &&
		       shmemx_buffer_in_pool(t.storage().data());
	}, "Whether the tensor's memory is a block of the library's buffer pool");
	m.def("pool_usage", []() {
		size_t size, used;
		py::dict d;

		shmemx_buffer_pool_usage(&size, &used);
		d["size"] = size;
		d["used"] = used;
		d["min"] = PoolAllocator::get().min_bytes();
		return d;
	}, "The buffer pool's bytes (0: none), those in live blocks, and the smallest tensor it takes");
	m.def("heap_usage", []() {
		unsigned blocks;
		size_t bytes;
		py::dict d;

		sct_heap_usage(&blocks, &bytes);
		d["tensors"] = blocks;
		d["bytes"] = bytes;
		return d;
	}, "This rank's heap tensors not yet dropped, and their bytes");
	m.def("progress_settings", []() {
		double spin, budget;
		size_t max;
		py::dict d;

		sct_engine_settings(&spin, &budget, &max);
		d["spin_us"] = spin * 1e6;
		d["inline_us"] = budget * 1e6;
		d["inline_max_bytes"] = max == SIZE_MAX ? py::object(py::none()) : py::int_(max);
		return d;
	}, "How the progress thread polls, and which operations run on their caller");
	m.doc() = "shmemcomm's torch.distributed backend (import shmemcomm_torch to register it)";
	py::class_<ProcessGroupShmemcomm, c10d::Backend, c10::intrusive_ptr<ProcessGroupShmemcomm>>(
		m, "ProcessGroupShmemcomm")
		.def(py::init<const c10::intrusive_ptr<c10d::Store> &, int, int, double,
			      std::vector<int64_t>>(),
		     py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout_seconds"),
		     py::arg("global_ranks"), py::call_guard<py::gil_scoped_release>());
}
