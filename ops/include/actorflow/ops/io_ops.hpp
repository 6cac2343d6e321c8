#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/graph.hpp"

/// Graph-building functions for the checkpoint ops (TensorFlow's `io_ops.py` and
/// `gen_io_ops`): SaveV2, RestoreV2 and MergeV2Checkpoints, whose files are TensorFlow's
/// tensor bundles (see `tensor_bundle.hpp`), and the V1 ops Save, SaveSlices, Restore,
/// RestoreSlice and ShardedFilespec, whose files are V1 checkpoints (see
/// `tensor_slice_checkpoint.hpp`).
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
/// partitioned tensor NAME to restore in slice_spec: S", and DataLoss for corrupt files;
/// errors name the node. As TensorFlow's, a prefix without a `PREFIX.index` file is read as
/// a V1 checkpoint (a file, or the shard files a pattern such as `P-?????-of-00002` matches;
/// see `restore`), with the V1 reader's errors (NotFound "Unsuccessful TensorSliceReader
/// constructor: Failed to find any matching files for PREFIX" when nothing matches).
std::vector<Output> restore_v2(const Output& prefix, const std::vector<std::string>& tensor_names,
                               const std::vector<DType>& dtypes, std::string_view name = {},
                               const std::vector<std::string>& shape_and_slices = {});

/// `tf.raw_ops.MergeV2Checkpoints`: merges the checkpoints at the string vector
/// `checkpoint_prefixes` into one at the string scalar `destination_prefix` (see
/// `merge_bundles`); with `delete_old_dirs` the inputs' emptied directories are removed.
/// The default name is "MergeV2Checkpoints".
Operation merge_v2_checkpoints(const Output& checkpoint_prefixes, const Output& destination_prefix,
                               bool delete_old_dirs = true, std::string_view name = {});

/// `tf.raw_ops.Save`: an op (no outputs) that, when run, writes `tensors` under
/// `tensor_names` as a V1 checkpoint file at the string scalar `filename` (one table file,
/// replaced atomically; its directory must exist). The names become the Const
/// `<op>/tensor_names`; attr `T` lists the dtypes. The default name is "save", made unique.
/// Running it fails with InvalidArgument "Tensor slice serialization not implemented for
/// dtype 22" for uint32 (23 for uint64), Unimplemented "Saving data type bfloat16 not yet
/// supported", and the I/O error naming the file; errors name the node.
Operation save(const Output& filename, const std::vector<std::string>& tensor_names,
               const std::vector<Output>& tensors, std::string_view name = {});

/// `tf.raw_ops.SaveSlices` (what `tf.compat.v1.train.Saver(write_version=V1)` builds): as
/// `save`, each tensor with a shape-and-slice spec, "" for a whole tensor or the slice of its
/// full tensor it is (`"4 2 0,2:-"`); slices of one name may come from several ops and
/// files. The specs become the Const `<op>/shapes_and_slices`; the default name is
/// "save_slices". Throws InvalidArgumentError when the numbers of names, specs and tensors
/// differ. Running it fails with InvalidArgument "Slice in shape_and_slice specification does
/// not match the shape of the tensor to  save: ..." and a spec's parse error, besides those of
/// `save`.
Operation save_slices(const Output& filename, const std::vector<std::string>& tensor_names,
                      const std::vector<std::string>& shapes_and_slices,
                      const std::vector<Output>& tensors, std::string_view name = {});

/// `tf.raw_ops.Restore`: the tensor `tensor_name` (a Const `<op>/tensor_name`) of dtype `dt`
/// from the V1 checkpoint files matching the string scalar `file_pattern` (a file, or a
/// glob such as `model.ckpt-?????-of-00002`), assembled from whatever slices and files hold
/// it. `preferred_shard` is kept as TensorFlow's attr; every matching file is read. The
/// default name is "Restore". Running it fails with NotFound "Unsuccessful TensorSliceReader
/// constructor: Failed to find any matching files for P", NotFound "Tensor name "N" not
/// found in checkpoint files P", InvalidArgument "Expected to restore a tensor of type float,
/// got a tensor of type int32 instead: tensor_name = N", DataLoss "Unable to open table file
/// F: ..." for a file that is not a V1 checkpoint, and the other errors of
/// `TensorSliceReader`; errors name the node.
Output restore(const Output& file_pattern, const std::string& tensor_name, DType dt,
               int preferred_shard = -1, std::string_view name = {});

/// `tf.raw_ops.RestoreSlice`: as `restore`, the slice of the tensor that `shape_and_slice`
/// names ("" for all of it; a Const `<op>/shape_and_slice`, so the output's static shape is
/// the slice's). Running it also fails with InvalidArgument "Shape in shape_and_slice spec
/// does not match the shape in the save file: [4,3], save file shape: [4,2]" and "Error
/// copying slice data: ..." when the stored slices do not cover the one asked for.
Output restore_slice(const Output& file_pattern, const std::string& tensor_name,
                     const std::string& shape_and_slice, DType dt, int preferred_shard = -1,
                     std::string_view name = {});

/// `tf.raw_ops.ShardedFilespec`: the string scalar `<basename>-?????-of-<num_shards>`
/// (`%05d`), the pattern that matches every shard file ShardedFilename names. The default
/// name is "ShardedFilespec".
Output sharded_filespec(const Output& basename, const Output& num_shards,
                        std::string_view name = {});

}  // namespace af
