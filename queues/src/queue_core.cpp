// Queue state machine; see queue_core.hpp. Follows tensorflow/core/kernels/queue_base.cc,
// fifo_queue.cc, random_shuffle_queue_op.cc, padding_fifo_queue.cc and priority_queue.cc.
#include "queue_core.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>
#include <random>

namespace af {

std::string_view queue_kind_name(QueueKind kind) noexcept {
  switch (kind) {
    case QueueKind::fifo:
      return "FIFOQueue";
    case QueueKind::random_shuffle:
      return "RandomShuffleQueue";
    case QueueKind::padding_fifo:
      return "PaddingFIFOQueue";
    case QueueKind::priority:
      return "PriorityQueue";
  }
  return "Queue";
}

Status QueueSpec::validate() const {
  std::string what = std::string(queue_kind_name(kind)) + " '" + name + "'";
  if (dtypes.empty())
    return invalid_argument(what + ": a queue needs at least one component dtype");
  if (!shapes.empty() && shapes.size() != dtypes.size())
    return invalid_argument(what + ": " + std::to_string(shapes.size()) + " shapes for " +
                            std::to_string(dtypes.size()) + " component dtypes");
  for (DType t : dtypes)
    if (t == DType::invalid || t == DType::resource)
      return invalid_argument(what + ": unsupported component dtype " + std::string(dtype_name(t)));
  if (kind == QueueKind::padding_fifo) {
    if (shapes.empty())
      return invalid_argument(what + ": shapes must be specified for a PaddingFIFOQueue");
    for (const auto& s : shapes)
      if (!s.rank_known())
        return invalid_argument(what + ": PaddingFIFOQueue component shapes need a known rank");
  } else {
    for (const auto& s : shapes)
      if (!s.fully_defined())
        return invalid_argument(what + ": component shape " + s.to_string() +
                                " is not fully defined (only a PaddingFIFOQueue pads unknown "
                                "dimensions)");
  }
  if (kind == QueueKind::priority) {
    if (dtypes[0] != DType::int64)
      return invalid_argument(what + ": component 0 (the priority) must be int64");
    if (!shapes.empty() && shapes[0].rank() != 0)
      return invalid_argument(what + ": component 0 (the priority) must be a scalar");
  }
  if (min_after_dequeue < 0) return invalid_argument(what + ": min_after_dequeue must be >= 0");
  return {};
}

namespace detail {

namespace {

std::string dims_string(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

std::string shape_string(const PartialShape& p) {
  return p.rank_known() ? dims_string(p.dims()) : "<unknown>";
}

/// Copies element `src` into row `row` of `dst` (shape [n] + padded dims), padding the rest.
void copy_into_row(const Tensor& src, Tensor& dst, std::int64_t row) {
  const auto& sd = src.shape().dims();
  std::vector<std::int64_t> dd(dst.shape().dims().begin() + 1, dst.shape().dims().end());
  std::int64_t row_elems = 1;
  for (auto d : dd) row_elems *= d;
  const bool strings = src.dtype() == DType::string;
  const std::size_t esize = strings ? 0 : dtype_size(src.dtype());
  auto copy_run = [&](std::int64_t src_off, std::int64_t dst_off, std::int64_t count) {
    if (count <= 0) return;
    if (strings) {
      const std::string* s = src.data<std::string>() + src_off;
      std::string* d = dst.data<std::string>() + row * row_elems + dst_off;
      std::copy(s, s + count, d);
    } else {
      const char* s =
          static_cast<const char*>(src.raw_data()) + src_off * static_cast<std::int64_t>(esize);
      char* d = static_cast<char*>(dst.raw_data()) +
                (row * row_elems + dst_off) * static_cast<std::int64_t>(esize);
      std::memcpy(d, s, static_cast<std::size_t>(count) * esize);
    }
  };
  if (sd == dd) return copy_run(0, 0, src.num_elements());
  // Padded copy: walk every index of the element's leading dimensions, copying its last
  // dimension as one run into the (larger) destination slot.
  const int rank = static_cast<int>(sd.size());
  if (src.num_elements() == 0) return;
  if (rank == 0) return copy_run(0, 0, 1);
  std::vector<std::int64_t> src_strides(static_cast<std::size_t>(rank), 1),
      dst_strides(static_cast<std::size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i) {
    src_strides[static_cast<std::size_t>(i)] =
        src_strides[static_cast<std::size_t>(i) + 1] * sd[static_cast<std::size_t>(i) + 1];
    dst_strides[static_cast<std::size_t>(i)] =
        dst_strides[static_cast<std::size_t>(i) + 1] * dd[static_cast<std::size_t>(i) + 1];
  }
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  const std::int64_t runs = src.num_elements() / sd.back();
  for (std::int64_t r = 0; r < runs; ++r) {
    std::int64_t so = 0, doff = 0;
    for (int i = 0; i < rank - 1; ++i) {
      so += index[static_cast<std::size_t>(i)] * src_strides[static_cast<std::size_t>(i)];
      doff += index[static_cast<std::size_t>(i)] * dst_strides[static_cast<std::size_t>(i)];
    }
    copy_run(so, doff, sd.back());
    for (int i = rank - 2; i >= 0; --i) {
      if (++index[static_cast<std::size_t>(i)] < sd[static_cast<std::size_t>(i)]) break;
      index[static_cast<std::size_t>(i)] = 0;
    }
  }
}

// -- element stores --------------------------------------------------------------------------

/// Splits a range into one-row ranges (for stores that order elements individually); the
/// rows keep sharing the batch.
template <class F>
void for_each_element(Rows rows, F&& f) {
  if (!rows.batched) return f(std::move(rows));
  const auto& source = rows.share();
  for (std::int64_t i = 0; i < rows.count; ++i) f(Rows::part(source, rows.begin + i, 1));
}

Rows single(Tuple element) { return Rows::whole(std::move(element), 1, false); }

/// FIFO order over whole ranges: a batch enqueued with enqueue_many stays one entry.
class FifoStore final : public ElementStore {
 public:
  std::int64_t size() const override { return size_; }
  void push(Rows r) override {
    size_ += r.count;
    ranges_.push_back(std::move(r));
  }
  void push_front(Rows r) override {
    size_ += r.count;
    ranges_.push_front(std::move(r));
  }
  Rows pop(std::int64_t max) override {
    Rows& front = ranges_.front();
    if (front.count <= max) {
      Rows r = std::move(front);
      ranges_.pop_front();
      size_ -= r.count;
      return r;
    }
    Rows r = Rows::part(front.share(), front.begin, max);
    front.begin += max;
    front.count -= max;
    size_ -= max;
    return r;
  }

 private:
  std::deque<Rows> ranges_;
  std::int64_t size_ = 0;
};

/// TensorFlow's RandomShuffleQueue: a random element swapped with the last one.
class ShuffleStore final : public ElementStore {
 public:
  ShuffleStore(std::int64_t seed, std::int64_t seed2) : generator_(make_generator(seed, seed2)) {}
  std::int64_t size() const override { return static_cast<std::int64_t>(elements_.size()); }
  void push(Rows r) override {
    for_each_element(std::move(r), [this](Rows e) { elements_.push_back(std::move(e)); });
  }
  void push_front(Rows r) override { push(std::move(r)); }
  Rows pop(std::int64_t) override {
    auto index = static_cast<std::size_t>(generator_() % elements_.size());
    Rows e = std::move(elements_[index]);
    if (index + 1 != elements_.size()) elements_[index] = std::move(elements_.back());
    elements_.pop_back();
    return e;
  }

 public:
  static PhiloxSingleSample make_generator(std::int64_t seed, std::int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      auto draw = [&] { return (static_cast<std::uint64_t>(rd()) << 32) | rd(); };
      return PhiloxSingleSample(draw(), draw());
    }
    return PhiloxSingleSample(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
  }

 private:
  PhiloxSingleSample generator_;
  std::vector<Rows> elements_;  ///< one row each
};

/// RandomShuffleQueue with declared shapes: the same order as ShuffleStore (a random
/// element swapped with the last one), but elements live column by column, one buffer per
/// component, so that enqueue_many and dequeue_many copy rows with no allocation or
/// reference count per element.
class ColumnShuffleStore final : public ElementStore {
 public:
  explicit ColumnShuffleStore(const QueueSpec& spec)
      : generator_(ShuffleStore::make_generator(spec.seed, spec.seed2)) {
    for (std::size_t c = 0; c < spec.dtypes.size(); ++c) {
      Column col;
      col.dtype = spec.dtypes[c];
      col.row_elements = 1;
      for (auto d : spec.shapes[c].dims()) col.row_elements *= d;
      col.row_bytes = col.dtype == DType::string
                          ? 0
                          : static_cast<std::size_t>(col.row_elements) * dtype_size(col.dtype);
      std::vector<std::int64_t> dims{0};
      dims.insert(dims.end(), spec.shapes[c].dims().begin(), spec.shapes[c].dims().end());
      col.batch_dims = std::move(dims);
      columns_.push_back(std::move(col));
    }
  }
  std::int64_t size() const override { return size_; }
  void push(Rows r) override {
    const Tuple& t = r.components();
    const std::int64_t first = r.batched ? r.begin : 0;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      Column& col = columns_[c];
      const std::int64_t from = first * col.row_elements, count = r.count * col.row_elements;
      if (col.dtype == DType::string) {
        const std::string* src = t[c].data<std::string>() + from;
        col.strings.insert(col.strings.end(), src, src + count);
      } else {
        const char* src = static_cast<const char*>(t[c].raw_data()) +
                          from * static_cast<std::int64_t>(dtype_size(col.dtype));
        col.bytes.insert(col.bytes.end(), src,
                         src + static_cast<std::size_t>(r.count) * col.row_bytes);
      }
    }
    size_ += r.count;
  }
  void push_front(Rows r) override { push(std::move(r)); }
  /// Takes `max` elements at once, in the order `max` one-element pops would take them,
  /// as one batch.
  Rows pop(std::int64_t max) override {
    Tuple batch;
    batch.reserve(columns_.size());
    for (auto& col : columns_) {
      col.batch_dims[0] = max;
      batch.emplace_back(col.dtype, Shape(col.batch_dims));
    }
    draw_indices(max);
    for (std::size_t c = 0; c < columns_.size(); ++c) take_column(columns_[c], batch[c]);
    size_ -= max;
    shrink();
    return Rows::whole(std::move(batch), max, true);
  }

 private:
  struct Column {
    DType dtype = DType::invalid;
    std::vector<std::int64_t> batch_dims;
    std::int64_t row_elements = 1;
    std::size_t row_bytes = 0;
    std::vector<char> bytes;           ///< rows of a numeric component
    std::vector<std::string> strings;  ///< elements of a string component
  };

  // The elements `max` single pops would take, in order: pop i draws `generator() % size`
  // (TensorFlow's 32-bit draw) with `size_ - i` elements left, and that element's place is
  // filled by the last one. All draws come first, so the divisions overlap, and the rows
  // then move column by column (the columns are independent; within one the order is kept).
  void draw_indices(std::int64_t max) {
    indices_.resize(static_cast<std::size_t>(max));
    std::int64_t left = size_;
    if (size_ <= std::numeric_limits<std::uint32_t>::max()) {
      // A 32-bit division while the size fits: the same value at a fraction of the cost.
      for (auto& index : indices_) index = generator_() % static_cast<std::uint32_t>(left--);
    } else {
      for (auto& index : indices_)
        index = static_cast<std::int64_t>(generator_() % static_cast<std::uint64_t>(left--));
    }
  }

  // Moves the drawn elements of `col` into the rows of `out`, each hole filled from the end.
  void take_column(Column& col, Tensor& out) const {
    std::int64_t last = size_ - 1;
    if (col.dtype == DType::string) {
      const auto k = col.row_elements;
      std::string* dst = out.data<std::string>();
      std::string* base = col.strings.data();
      for (const std::int64_t index : indices_) {
        std::string* src = base + index * k;
        dst = std::move(src, src + k, dst);
        if (index != last) std::move(base + last * k, base + (last + 1) * k, src);
        --last;
      }
      return;
    }
    switch (col.row_bytes) {
      // Scalars of 4 and 8 bytes (the usual CSV columns) copy without a call.
      case 4:
        return take_rows<std::uint32_t>(col, out, last);
      case 8:
        return take_rows<std::uint64_t>(col, out, last);
      default:
        break;
    }
    const std::size_t rb = col.row_bytes;
    char* base = col.bytes.data();
    char* dst = static_cast<char*>(out.raw_data());
    for (const std::int64_t index : indices_) {
      char* hole = base + static_cast<std::size_t>(index) * rb;
      std::memcpy(dst, hole, rb);
      if (index != last) std::memcpy(hole, base + static_cast<std::size_t>(last) * rb, rb);
      dst += rb;
      --last;
    }
  }
  template <class Word>
  void take_rows(Column& col, Tensor& out, std::int64_t last) const {
    // The byte buffers are std::vector<char>, malloc-aligned; rows of sizeof(Word) bytes
    // are read and written as Words through memcpy, which compiles to plain moves.
    char* base = col.bytes.data();
    char* dst = static_cast<char*>(out.raw_data());
    for (const std::int64_t index : indices_) {
      char* hole = base + static_cast<std::size_t>(index) * sizeof(Word);
      Word v, tail;
      std::memcpy(&v, hole, sizeof(Word));
      std::memcpy(&tail, base + static_cast<std::size_t>(last) * sizeof(Word), sizeof(Word));
      std::memcpy(dst, &v, sizeof(Word));
      std::memcpy(hole, &tail, sizeof(Word));  // its own row when the hole is the last one
      dst += sizeof(Word);
      --last;
    }
  }
  // Drops the rows `take_column` moved out from the columns' ends.
  void shrink() {
    for (auto& col : columns_) {
      if (col.dtype == DType::string)
        col.strings.resize(static_cast<std::size_t>(size_ * col.row_elements));
      else
        col.bytes.resize(static_cast<std::size_t>(size_) * col.row_bytes);
    }
  }

  PhiloxSingleSample generator_;
  std::vector<Column> columns_;
  std::int64_t size_ = 0;
  std::vector<std::int64_t> indices_;  ///< draw_indices's, reused
};

/// TensorFlow's PriorityQueue: smallest priority (component 0) first.
class PriorityStore final : public ElementStore {
 public:
  std::int64_t size() const override { return static_cast<std::int64_t>(heap_.size()); }
  void push(Rows r) override {
    for_each_element(std::move(r), [this](Rows e) {
      const Tensor& p = e.components()[0];
      std::int64_t priority = p.data<std::int64_t>()[e.batched ? e.begin : 0];
      heap_.push(Entry{priority, next_++, std::move(e)});
    });
  }
  void push_front(Rows r) override { push(std::move(r)); }
  Rows pop(std::int64_t) override {
    Rows e = std::move(const_cast<Entry&>(heap_.top()).element);
    heap_.pop();
    return e;
  }

 private:
  struct Entry {
    std::int64_t priority;
    std::uint64_t sequence;
    Rows element;
    bool operator<(const Entry& o) const {
      return priority != o.priority ? priority > o.priority : sequence > o.sequence;
    }
  };
  std::priority_queue<Entry> heap_;
  std::uint64_t next_ = 0;
};

}  // namespace

Tuple Rows::element(std::int64_t i) const {
  if (!batched) return components();
  Tuple e;
  e.reserve(components().size());
  for (const auto& c : components()) e.push_back(c.slice(begin + i));
  return e;
}

// -- QueueCore -----------------------------------------------------------------------------

QueueCore::QueueCore(QueueSpec spec)
    : spec_(std::move(spec)),
      capacity_(spec_.capacity < 0 ? std::numeric_limits<std::int64_t>::max() : spec_.capacity) {
  switch (spec_.kind) {
    case QueueKind::fifo:
    case QueueKind::padding_fifo:
      store_ = std::make_unique<FifoStore>();
      break;
    case QueueKind::random_shuffle:
      if (spec_.shapes.empty())
        store_ = std::make_unique<ShuffleStore>(spec_.seed, spec_.seed2);
      else
        store_ = std::make_unique<ColumnShuffleStore>(spec_);
      break;
    case QueueKind::priority:
      store_ = std::make_unique<PriorityStore>();
      break;
  }
}

std::string QueueCore::where() const { return " (" + prefix() + ")"; }

std::string QueueCore::prefix() const {
  return std::string(queue_kind_name(spec_.kind)) + " '" + spec_.name + "'";
}

Status QueueCore::validate_tuple(const Tuple& t) const {
  if (t.size() != spec_.dtypes.size())
    return invalid_argument("Wrong number of components in tuple. Expected " +
                            std::to_string(spec_.dtypes.size()) + ", got " +
                            std::to_string(t.size()) + where());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].dtype() != spec_.dtypes[i])
      return invalid_argument("Type mismatch in tuple component " + std::to_string(i) +
                              ". Expected " + std::string(data_type_string(spec_.dtypes[i])) +
                              ", got " + std::string(data_type_string(t[i].dtype())) + where());
    if (spec_.specified_shapes() && !spec_.shapes[i].is_compatible_with(t[i].shape()))
      return invalid_argument("Shape mismatch in tuple component " + std::to_string(i) +
                              ". Expected " + shape_string(spec_.shapes[i]) + ", got " +
                              dims_string(t[i].shape().dims()) + where());
  }
  return {};
}

Status QueueCore::validate_many_tuple(const Tuple& t) const {
  if (t.size() != spec_.dtypes.size())
    return invalid_argument("Wrong number of components in tuple. Expected " +
                            std::to_string(spec_.dtypes.size()) + ", got " +
                            std::to_string(t.size()) + where());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].dtype() != spec_.dtypes[i])
      return invalid_argument("Type mismatch in tuple component " + std::to_string(i) +
                              ". Expected " + std::string(data_type_string(spec_.dtypes[i])) +
                              ", got " + std::string(data_type_string(t[i].dtype())) + where());
    if (t[i].rank() < 1)
      return invalid_argument("Shape mismatch in tuple component " + std::to_string(i) +
                              ". enqueue_many needs a batch dimension, got a scalar" + where());
  }
  const std::int64_t batch = t[0].shape().dim(0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (spec_.specified_shapes()) {
      const auto& d = spec_.shapes[i].dims();
      const auto& got = t[i].shape().dims();
      bool ok = got.size() == d.size() + 1 && got[0] == batch;
      for (std::size_t k = 0; ok && k < d.size(); ++k) ok = d[k] < 0 || d[k] == got[k + 1];
      if (ok) continue;
      std::vector<std::int64_t> expected{batch};
      expected.insert(expected.end(), d.begin(), d.end());
      return invalid_argument("Shape mismatch in tuple component " + std::to_string(i) +
                              ". Expected " + dims_string(expected) + ", got " +
                              dims_string(t[i].shape().dims()) + where());
    } else if (t[i].shape().dim(0) != batch) {
      return invalid_argument(
          "All input tensors must have the same size in the 0th dimension. "
          "Component " +
          std::to_string(i) + " has " + std::to_string(t[i].shape().dim(0)) + ", and should have " +
          std::to_string(batch) + where());
    }
  }
  return {};
}

Shape QueueCore::many_out_shape(std::size_t component, std::int64_t n) const {
  std::vector<std::int64_t> dims{n};
  for (auto d : spec_.shapes[component].dims()) dims.push_back(d < 0 ? 0 : d);
  return Shape(std::move(dims));
}

Tuple QueueCore::assemble(std::span<const Rows> taken, std::int64_t n) const {
  Tuple out;
  out.reserve(spec_.dtypes.size());
  const bool padding = spec_.kind == QueueKind::padding_fifo;
  if (!padding && taken.size() == 1 && taken[0].batched) {
    // The batch lines up with one enqueued range: hand out a view of it.
    for (const auto& c : taken[0].components())
      out.push_back(c.slice_rows(taken[0].begin, taken[0].begin + taken[0].count));
    return out;
  }
  for (std::size_t c = 0; c < spec_.dtypes.size(); ++c) {
    Shape shape = many_out_shape(c, n);
    if (padding) {
      // Every unknown dimension becomes the largest among the batch's elements.
      auto& dims = shape.mutable_dims();
      for (const auto& r : taken) {
        const Tensor& t = r.components()[c];
        const int first = r.batched ? 1 : 0;
        for (int d = first; d < t.rank(); ++d)
          dims[static_cast<std::size_t>(d - first) + 1] =
              std::max(dims[static_cast<std::size_t>(d - first) + 1], t.shape().dim(d));
      }
    }
    Tensor batch(spec_.dtypes[c], shape);
    const bool strings = batch.dtype() == DType::string;
    std::int64_t row = 0;
    for (const auto& r : taken) {
      const Tensor& t = r.components()[c];
      if (!padding) {
        // Rows of the element's own shape: one contiguous copy per range.
        const std::int64_t per_row =
            r.batched ? (t.shape().dim(0) ? t.num_elements() / t.shape().dim(0) : 0)
                      : t.num_elements();
        const std::int64_t from = r.batched ? r.begin * per_row : 0, to = row * per_row;
        const std::int64_t count = r.count * per_row;
        if (strings) {
          const std::string* src = t.data<std::string>() + from;
          std::copy(src, src + count, batch.data<std::string>() + to);
        } else {
          const auto esize = static_cast<std::int64_t>(dtype_size(t.dtype()));
          std::memcpy(static_cast<char*>(batch.raw_data()) + to * esize,
                      static_cast<const char*>(t.raw_data()) + from * esize,
                      static_cast<std::size_t>(count * esize));
        }
        row += r.count;
        continue;
      }
      for (std::int64_t i = 0; i < r.count; ++i, ++row)
        copy_into_row(r.batched ? t.slice(r.begin + i) : t, batch, row);
    }
    out.push_back(std::move(batch));
  }
  return out;
}

void QueueCore::enqueue(std::uint64_t id, Tuple element, ReplyFn done) {
  Attempt a{AttemptKind::enqueue, id, 1, false, std::move(element), {}, {}, 0, {}, {},
            std::move(done)};
  enqueue_attempts_.push_back(std::move(a));
  flush();
}

void QueueCore::enqueue_many(std::uint64_t id, Tuple batch, ReplyFn done) {
  const std::int64_t n = batch.empty() ? 0 : batch[0].shape().dim(0);
  if (n == 0) return done({});
  Attempt a{AttemptKind::enqueue_many,
            id,
            n,
            false,
            std::move(batch),
            {},
            {},
            0,
            {},
            {},
            std::move(done)};
  enqueue_attempts_.push_back(std::move(a));
  flush();
}

void QueueCore::dequeue(std::uint64_t id, ReplyFn done) {
  Attempt a{AttemptKind::dequeue, id, 1, false, {}, {}, {}, 0, {}, {}, std::move(done)};
  dequeue_attempts_.push_back(std::move(a));
  flush();
}

void QueueCore::dequeue_many(std::uint64_t id, std::int64_t n, bool allow_small_batch,
                             ReplyFn done) {
  const char* op = allow_small_batch ? "DequeueUpTo" : "DequeueMany";
  if (!spec_.specified_shapes())
    return done({invalid_argument(std::string(queue_kind_name(spec_.kind)) +
                                  "'s DequeueMany and "
                                  "DequeueUpTo require the components to have specified "
                                  "shapes (" +
                                  prefix() + ")"),
                 {}});
  if (n < 0)
    return done({invalid_argument(std::string(op) + "Op requested " + std::to_string(n) +
                                  " < 0 elements (" + prefix() + ")"),
                 {}});
  if (n == 0) return done({Status(), assemble({}, 0)});
  Attempt a{
      AttemptKind::dequeue_many, id, n, allow_small_batch, {}, {}, {}, 0, {}, {}, std::move(done)};
  dequeue_attempts_.push_back(std::move(a));
  flush();
}

void QueueCore::close(std::uint64_t id, bool cancel_pending_enqueues, ReplyFn done) {
  if (cancel_pending_enqueues) {
    closed_ = true;
    auto pending = std::move(enqueue_attempts_);
    enqueue_attempts_.clear();
    // Every pending enqueue attempt is cancelled, a plain close waiting behind enqueues too
    // (TensorFlow's CloseAndCancel: closes are attempts in the same list).
    for (auto& a : pending) a.done({cancelled("Enqueue operation was cancelled"), {}});
    done({});
    flush();
    return;
  }
  Attempt a{AttemptKind::close, id, 0, false, {}, {}, {}, 0, {}, {}, std::move(done)};
  enqueue_attempts_.push_back(std::move(a));
  flush();
}

void QueueCore::give_back(Attempt& a) {
  // Reserved elements go back in front, the last taken first, so FIFO order is kept.
  for (auto it = a.taken.rbegin(); it != a.taken.rend(); ++it) store_->push_front(std::move(*it));
  a.taken.clear();
  // As TensorFlow, `requested` keeps counting what is still missing (its error message
  // reports that number).
  a.reserved = 0;
}

bool QueueCore::cancel(std::uint64_t id, const Status& why) {
  for (auto* attempts : {&enqueue_attempts_, &dequeue_attempts_}) {
    for (auto it = attempts->begin(); it != attempts->end(); ++it) {
      if (it->id != id || it->kind == AttemptKind::close) continue;
      Attempt a = std::move(*it);
      attempts->erase(it);
      give_back(a);
      a.done({why, {}});
      flush();
      return true;
    }
  }
  return false;
}

void QueueCore::restore(const Tuple& components, bool many) {
  if (components.empty()) return;
  // A padded batch cannot be unpadded; its rows go back padded (as TensorFlow's
  // partial-batch restore does).
  if (!many) {
    store_->push_front(single(components));
  } else {
    const std::int64_t n = components[0].shape().dim(0);
    if (n > 0) store_->push_front(Rows::whole(components, n, true));
  }
  flush();
}

void QueueCore::fail_all(const Status& why) {
  auto enq = std::move(enqueue_attempts_);
  auto deq = std::move(dequeue_attempts_);
  enqueue_attempts_.clear();
  dequeue_attempts_.clear();
  for (auto& a : enq) a.done({why, {}});
  for (auto& a : deq) {
    give_back(a);
    a.done({why, {}});
  }
}

QueueCore::RunResult QueueCore::run_enqueue(Attempt& a) {
  switch (a.kind) {
    case AttemptKind::close:
      if (closed_)
        a.status = cancelled("Queue '" + spec_.name + "' is already closed.");
      else
        closed_ = true;
      return RunResult::complete;
    case AttemptKind::enqueue:
      if (closed_) {
        a.status = cancelled(prefix() + " is closed.");
        return RunResult::complete;
      }
      if (store_->size() < capacity_) {
        store_->push(single(std::move(a.input)));
        return RunResult::complete;
      }
      return RunResult::no_progress;
    case AttemptKind::enqueue_many: {
      if (closed_) {
        a.status = cancelled(prefix() + " is closed.");
        return RunResult::complete;
      }
      const std::int64_t room = capacity_ - store_->size();
      if (room <= 0) return RunResult::no_progress;
      // As many rows as fit enter as one range of the batch.
      const Tuple& input = a.shared_input ? *a.shared_input : a.input;
      const std::int64_t batch = input[0].shape().dim(0);
      const std::int64_t k = std::min(room, a.requested);
      const std::int64_t index = batch - a.requested;
      a.requested -= k;
      if (index == 0 && k == batch) {
        store_->push(Rows::whole(std::move(a.input), k, true));  // in whole: no sharing
      } else {
        if (!a.shared_input) a.shared_input = std::make_shared<const Tuple>(std::move(a.input));
        store_->push(Rows::part(a.shared_input, index, k));
      }
      return a.requested == 0 ? RunResult::complete : RunResult::progress;
    }
    default:
      return RunResult::complete;
  }
}

QueueCore::RunResult QueueCore::run_dequeue(Attempt& a) {
  std::int64_t queue_size = store_->size();
  const std::int64_t min_after =
      spec_.kind == QueueKind::random_shuffle ? spec_.min_after_dequeue : 0;
  if (a.kind == AttemptKind::dequeue) {
    if (closed_ && queue_size == 0) {
      a.status = out_of_range(prefix() +
                              " is closed and has insufficient elements (requested 1, "
                              "current size 0)");
      return RunResult::complete;
    }
    if (!closed_) queue_size -= min_after;
    if (queue_size > 0) {
      Rows r = store_->pop(1);
      a.output = !r.batched && r.is_whole() ? std::move(r.owned) : r.element(0);
      return RunResult::complete;
    }
    return RunResult::no_progress;
  }
  // dequeue_many / dequeue_up_to
  if (closed_ && queue_size < a.requested) {
    // Not enough for a full batch: what this attempt reserved goes back first.
    give_back(a);
    if (a.allow_small_batch && store_->size() > 0) {
      a.requested = store_->size();
      queue_size = a.requested;
    } else {
      if (a.allow_small_batch && !enqueue_attempts_.empty()) return RunResult::progress;
      a.status = out_of_range(prefix() + " is closed and has insufficient elements (requested " +
                              std::to_string(a.requested) + ", current size " +
                              std::to_string(queue_size) + ")");
      return RunResult::complete;
    }
  }
  // A PriorityQueue takes a batch only once all of it is there (TensorFlow's
  // PriorityQueue::TryDequeueMany): rows taken piece by piece would leave the batch
  // unsorted when smaller priorities arrive in between.
  if (spec_.kind == QueueKind::priority && queue_size < a.requested) return RunResult::no_progress;
  RunResult result = RunResult::no_progress;
  if (!closed_) queue_size -= min_after;

  while (queue_size > 0) {
    result = RunResult::progress;
    Rows r = store_->pop(std::min(queue_size, a.requested));
    if (a.taken.empty() && r.count == a.requested) {
      // The whole batch in one range: no list of ranges needed, and a batch enqueued whole
      // goes out as it came in.
      if (r.batched && r.is_whole() && spec_.kind != QueueKind::padding_fifo)
        a.output = std::move(r.owned);
      else
        a.output = assemble(std::span<const Rows>(&r, 1), r.count);
      a.requested = 0;
      return RunResult::complete;
    }
    queue_size -= r.count;
    a.requested -= r.count;
    a.reserved += r.count;
    a.taken.push_back(std::move(r));
    if (a.requested == 0) {
      a.output = assemble(a.taken, a.reserved);
      a.taken.clear();
      a.reserved = 0;
      return RunResult::complete;
    }
  }
  return result;
}

bool QueueCore::try_attempts(AttemptQueue& attempts, bool enqueue_side,
                             std::vector<std::pair<ReplyFn, QueueReply>>* finished) {
  bool progress = false;
  while (!attempts.empty()) {
    Attempt& cur = attempts.front();
    RunResult r = enqueue_side ? run_enqueue(cur) : run_dequeue(cur);
    if (r == RunResult::no_progress) break;
    progress = true;
    if (r == RunResult::progress) break;
    finished->emplace_back(std::move(cur.done),
                           QueueReply{std::move(cur.status), std::move(cur.output)});
    attempts.pop_front();
  }
  return progress;
}

void QueueCore::flush() {
  if (flushing_) return;
  flushing_ = true;
  std::vector<std::pair<ReplyFn, QueueReply>> finished;
  finished.swap(finished_);
  bool changed;
  int idle_rounds = 0;
  do {
    std::size_t before = finished.size();
    std::int64_t size_before = store_->size();
    changed = try_attempts(enqueue_attempts_, true, &finished);
    changed = try_attempts(dequeue_attempts_, false, &finished) || changed;
    // A dequeue_up_to that yields to pending enqueues reports progress without any; stop
    // once a round changes nothing observable.
    if (finished.size() == before && store_->size() == size_before) {
      if (++idle_rounds > 2) break;
    } else {
      idle_rounds = 0;
    }
  } while (changed);
  flushing_ = false;
  for (auto& [done, reply] : finished) done(std::move(reply));
  finished.clear();
  if (finished_.capacity() < finished.capacity()) finished_.swap(finished);
}

}  // namespace detail
}  // namespace af
