#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/graph.hpp"

/// Graph-building functions for the V2 checkpoint ops (TensorFlow's `io_ops.py` and
/// `gen_io_ops`): SaveV2, RestoreV2 and MergeV2Checkpoints. The files they read and write
/// are TensorFlow's tensor bundles (see `tensor_bundle.hpp`).
namespace af {

/// `tf.raw_ops.SaveV2`: an op (no outputs) that, when run, writes `tensors` under
/// `tensor_names` as a checkpoint at the string scalar `prefix` (files `prefix.index` and
/// `prefix.data-00000-of-00001`, replaced atomically).
///
/// `tensor_names` and the shape-and-slice specs become Const nodes `<op>/tensor_names` and
/// `<op>/shape_and_slices`, as TensorFlow's Python API names converted list inputs; the
/// op's attr `dtypes` lists the tensors' dtypes. The default name is "SaveV2", made unique.
/// `shape_and_slices` empty means all "" (whole tensors); otherwise one spec per tensor,
/// "" or a part's slice of its full tensor (`"10 4 4,3:0,4"`, see `parse_shape_and_slice`):
/// the parts of one partitioned variable share its name and are saved as its slices.
///
/// Throws InvalidArgumentError when the numbers of names, specs and tensors differ or shape
/// inference rejects the inputs (a non-scalar prefix). Running the op fails with
/// InvalidArgument "Adding duplicate key: NAME" for a repeated name, "Slice in
/// shape_and_slice specification does not match the shape of the tensor to  save: ..."
/// for a tensor that is not its spec's slice, a spec's parse error, and with the I/O error
/// when the files cannot be written; errors name the node.
Operation save_v2(const Output& prefix, const std::vector<std::string>& tensor_names,
                  const std::vector<Output>& tensors, std::string_view name = {},
                  const std::vector<std::string>& shape_and_slices = {});

/// `tf.raw_ops.RestoreV2`: reads the tensors `tensor_names` of the checkpoint at the string
/// scalar `prefix`, one output per name with the dtype given in `dtypes` and the shape
/// stored in the checkpoint (statically unknown).
///
/// Names and shape-and-slice specs become Const nodes as in `save_v2`; the default name is
/// "RestoreV2". An output with a non-empty spec is that slice of the stored tensor (its
/// static shape the slice's), read from whatever slices the checkpoint holds it in (see
/// `BundleReader::lookup_slice`), so a variable saved in 4 parts restores into 2 or 8.
/// Throws InvalidArgumentError when `tensor_names`, `dtypes` and non-empty
/// `shape_and_slices` differ in length or a spec does not parse. Running the op fails with
/// NotFound "Key NAME not found in checkpoint" for a missing tensor, InvalidArgument
/// "tensor_name = NAME; expected dtype float does not equal original dtype double" for a
/// dtype mismatch, "tensor_name = NAME; shape in shape_and_slice spec [10,4] does not match
/// the shape stored in checkpoint: [12,4]", "Does not have sufficient slices for
/// partitioned tensor NAME to restore in slice_spec: S", NotFound "Unsuccessful
/// TensorSliceReader constructor: Failed to find any matching files for PREFIX" when
/// `PREFIX.index` does not exist, and DataLoss for corrupt files; errors name the node.
std::vector<Output> restore_v2(const Output& prefix, const std::vector<std::string>& tensor_names,
                               const std::vector<DType>& dtypes, std::string_view name = {},
                               const std::vector<std::string>& shape_and_slices = {});

/// `tf.raw_ops.MergeV2Checkpoints`: merges the checkpoints at the string vector
/// `checkpoint_prefixes` into one at the string scalar `destination_prefix` (see
/// `merge_bundles`); with `delete_old_dirs` the inputs' emptied directories are removed.
/// The default name is "MergeV2Checkpoints".
Operation merge_v2_checkpoints(const Output& checkpoint_prefixes, const Output& destination_prefix,
                               bool delete_old_dirs = true, std::string_view name = {});

}  // namespace af
