#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// TensorArrays (TensorFlow 1.x's `tf.TensorArray` in graph mode, tensor_array_ops.py): a
/// per-step array of tensors that while loops write one element per iteration and read back
/// whole (`dynamic_rnn`, `map_fn`, `scan` are built on them), with gradients.
namespace af {

/// Options of a new `TensorArray` (the Python constructor's keyword arguments).
struct TensorArrayOptions {
  /// Writes past the size grow the array (`dynamic_size`).
  bool dynamic_size = false;
  /// A read frees its element, and a second read of it fails (`clear_after_read`).
  bool clear_after_read = true;
  /// The name of the array in error messages (`tensor_array_name`); empty: the op's name.
  std::string tensor_array_name;
  /// The elements' shape, checked at every write (`element_shape`); unknown by default.
  PartialShape element_shape;
  /// Writes refine the static element shape, and every element must have one shape
  /// (`infer_shape`, the op's `identical_element_shapes`).
  bool infer_shape = true;
  /// The array's ops are colocated with the first value written to it
  /// (`colocate_with_first_write_call`).
  bool colocate_with_first_write_call = true;
  /// The name scope (default "TensorArray"); the TensorArrayV3 op takes the scope's name.
  std::string name;
};

/// `tf.TensorArray` (graph mode, `_GraphTensorArray`): a handle to a TensorArrayV3 and the
/// float scalar `flow` that orders the ops on it. A TensorArray is a value: `write`,
/// `scatter`, `unstack` and `split` return a new TensorArray whose flow follows the
/// operation, and reading through it sees what was written. Copies share the static
/// element shape that writes refine.
///
/// Inside a `while_loop`, carry `flow()` as a loop variable and rebuild the array in the
/// body and after the loop with `with_flow` (what Python's while_loop does for TensorArray
/// loop variables):
///
///     TensorArray out(g, float32, n);
///     auto r = while_loop(cond, [&](const std::vector<Output>& v) {
///       return std::vector<Output>{v[0] + 1, out.with_flow(v[1]).write(v[0], f(v[0])).flow()};
///     }, {g.constant(0), out.flow()});
///     Output all = out.with_flow(r[1]).stack();
///
/// Gradients flow through reads, writes, gathers, scatters, concats and splits, also
/// inside loops (`gradients.hpp`): each `gradients` call gets its own gradient array
/// (TensorArrayGradV3 with the call's name scope as `source`), whose writes to one index
/// are summed. Errors at run time are TensorFlow's, naming the array ("TensorArray
/// TensorArray_0: Could not read index 0 twice because it was cleared after a previous
/// read (perhaps try setting clear_after_read = false?).").
class TensorArray {
 public:
  /// A new array of `size` (an int32 scalar) elements of `dtype`: op TensorArrayV3.
  /// Throws InvalidArgumentError for a `size` that is not an int32 scalar.
  TensorArray(DType dtype, const Output& size, TensorArrayOptions options = {});
  /// As above with `size` a Const "<scope>/size".
  TensorArray(Graph& g, DType dtype, std::int32_t size, TensorArrayOptions options = {});
  /// An array given by its `handle` and `flow` (Python's `TensorArray(handle=, flow=)`): what
  /// the gradient functions build on a forward op's inputs. Its size is read with op
  /// TensorArraySizeV3.
  static TensorArray from_handle(DType dtype, const Output& handle, const Output& flow,
                                 bool infer_shape = true,
                                 bool colocate_with_first_write_call = true);

  /// The resource handle (TensorArrayV3's output 0).
  const Output& handle() const noexcept { return handle_; }
  /// The flow: a float scalar that each operation on the array passes on.
  const Output& flow() const noexcept { return flow_; }
  /// The elements' dtype.
  DType dtype() const noexcept;
  /// The static element shape known so far (unknown rank when none).
  PartialShape element_shape() const;
  /// The graph.
  Graph& graph() const { return handle_.graph(); }

  /// The same array with `flow` as its flow (`build_ta_with_new_flow`): a loop variable's
  /// value inside and after a `while_loop`.
  TensorArray with_flow(const Output& flow) const;
  /// The same array behind an Identity of the flow (`TensorArray.identity`).
  TensorArray identity() const;

  /// Op TensorArrayReadV3 "TensorArrayReadV3" of element `index` (an int32 scalar), with the
  /// static element shape. At run time InvalidArgument for an index out of range, an element
  /// not written (unless the element shape is fully defined: zeros) or already cleared.
  Output read(const Output& index, std::string_view name = {}) const;
  /// As above with `index` a Const "<op>/index".
  Output read(std::int32_t index, std::string_view name = {}) const;
  /// Op TensorArrayWriteV3 "TensorArrayWrite/TensorArrayWriteV3" of `value` at `index`.
  /// Throws InvalidArgumentError when `value`'s static shape does not fit the element shape
  /// ("Inconsistent shapes: saw (3,) but expected (2,) "). At run time InvalidArgument for
  /// another dtype than the array's, an index out of range of a fixed-size array, or an index
  /// written twice.
  TensorArray write(const Output& index, const Output& value, std::string_view name = {}) const;
  /// As above with `index` a Const.
  TensorArray write(std::int32_t index, const Output& value, std::string_view name = {}) const;

  /// Op TensorArrayGatherV3 of the elements at `indices` (an int32 vector), stacked along a
  /// new first dimension.
  Output gather(const Output& indices, std::string_view name = {}) const;
  /// Every element stacked (`TensorArray.stack`): "TensorArrayStack/TensorArrayGatherV3" of
  /// `range(0, size())`.
  Output stack(std::string_view name = {}) const;
  /// Op TensorArrayConcatV3: the elements (vectors or higher) joined along dimension 0.
  Output concat(std::string_view name = {}) const;
  /// Op TensorArrayScatterV3: row i of `value` becomes element `indices[i]`.
  TensorArray scatter(const Output& indices, const Output& value, std::string_view name = {}) const;
  /// Row i of `value` becomes element i (`TensorArray.unstack`): a scatter of
  /// `range(0, shape(value)[0])` under the scope "TensorArrayUnstack".
  TensorArray unstack(const Output& value, std::string_view name = {}) const;
  /// Op TensorArraySplitV3: `value` cut along dimension 0 into pieces of `lengths` rows (any
  /// integer vector, cast to int64), one per element.
  TensorArray split(const Output& value, const Output& lengths, std::string_view name = {}) const;

  /// The number of elements: the size given at construction for a fixed-size array, else op
  /// TensorArraySizeV3.
  Output size(std::string_view name = {}) const;
  /// Op TensorArrayCloseV3: frees the elements; later operations on the array fail.
  Operation close(std::string_view name = {}) const;
  /// The gradient array of this one for the `gradients` call whose name scope is `source`
  /// (`TensorArray.grad`): op "TensorArrayGrad/TensorArrayGradV3" waiting for `flow` (default:
  /// this array's), and an Identity "TensorArrayGrad/gradient_flow" as its flow. Writes to
  /// one index of a gradient array are summed.
  TensorArray grad(const std::string& source, const Output& flow = {},
                   std::string_view name = {}) const;

 private:
  struct State;
  static std::shared_ptr<State> new_state(DType dtype, const TensorArrayOptions& options);
  TensorArray(std::shared_ptr<State> state, Output handle, Output flow);
  void check_element_shape(const PartialShape& shape) const;
  ScopeGuard maybe_colocate_with(const Output& value) const;

  std::shared_ptr<State> state_;
  Output handle_;
  Output flow_;
};

}  // namespace af
