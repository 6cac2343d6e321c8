#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Whole files, fingerprints, raw and compressed bytes, and tensors as TensorProto bytes
/// (TensorFlow's `tf.io.read_file`, `write_file`, `matching_files`, `decode_compressed`,
/// `decode_raw(fixed_length=...)`, `serialize_tensor` and `parse_tensor`; whole_file_read_ops.cc,
/// matching_files_op.cc, decode_padded_raw_op.cc, decode_compressed_op.cc and
/// parse_tensor_op.cc). Errors from running name the op's node.
namespace af::io {

/// `tf.io.read_file(filename)`: op ReadFile (default name "ReadFile"), the whole file at the
/// string scalar `filename` (a path or a "file://" URI) as a string scalar. Running fails with
/// InvalidArgument "Input filename tensor must be scalar, but had shape: [2]", and with the
/// file system's error, coded by errno: NotFound "x; No such file or directory",
/// FailedPrecondition "d; Is a directory", Unimplemented "File system scheme 'gs' not
/// implemented (file: 'gs://b/x')". Not differentiable.
Output read_file(const Output& filename, std::string_view name = {});

/// `tf.io.write_file(filename, contents)`: op WriteFile (stateful, no outputs; default name
/// "WriteFile") writing the string scalar `contents` to the file `filename` (created or
/// truncated), making its missing parent directories first (0755), as TensorFlow does.
/// Running fails with "Input filename tensor must be scalar, but had shape: [2]", "Contents
/// tensor must be scalar, but had shape: [2]", FailedPrecondition "a/f is not a directory"
/// when a parent is a file, and the file system's errors ("...; Permission denied").
Operation write_file(const Output& filename, const Output& contents, std::string_view name = {});

/// `tf.io.matching_files(pattern)`: op MatchingFiles (default name "MatchingFiles"), a string
/// vector of the paths matching the string scalar or vector `pattern`, all patterns' matches
/// together sorted. Each pattern is matched as TensorFlow's GetMatchingPaths: directory by
/// directory with fnmatch(FNM_PATHNAME) (`*`, `?`, `[...]`, `\`; hidden files included), a
/// pattern without a directory part taken as "./pattern" (so "*.txt" gives "./a.txt"), a
/// pattern without globbing characters kept as written when the path exists, "" matching
/// nothing; no match is no error. Shape function: "Shape must be at most rank 1 but is rank
/// 2". Running fails with "Input patterns tensor must be scalar or vector, but had shape: ...".
Output matching_files(const Output& pattern, std::string_view name = {});

/// `tf.io.decode_compressed(bytes, compression_type)`: op DecodeCompressed (default name
/// "DecodeCompressed"), each string of `bytes` decompressed, shape kept. `compression_type` is
/// "" (a copy), "ZLIB", "GZIP" (members read back to back) or "ZSTD" (through libzstd.so.1,
/// opened on first use). As TensorFlow's zlib stream, truncated input gives what it holds and a
/// zlib stream's trailing bytes are ignored. Running fails with InvalidArgument "Only ZLIB,
/// ZSTD, GZIP or NONE are supported compressions" for another type, DataLoss "inflate() failed
/// with error -3: incorrect header check", "Failed to determine decompressed size" (ZSTD).
Output decode_compressed(const Output& bytes, std::string_view compression_type = "",
                         std::string_view name = {});

/// `tf.io.decode_raw(input_bytes, out_type, little_endian, fixed_length)`: op DecodePaddedRaw
/// (default name "DecodePaddedRaw", `fixed_length` the int32 Const "<op>/fixed_length"), each
/// string's first `fixed_length` bytes as `fixed_length / size` elements of `out_type`
/// (float32, float64, int32, uint8, int64, bfloat16), zeros past a shorter string, shape
/// `input_bytes.shape + [fixed_length / size]`. Errors: "Dimension size must be evenly
/// divisible by 4 but is 6" (shape function), running: "fixed_length (6) must be a multiple of
/// the size of out_type (4)", "fixed_length (0) must be greater than zero.". Not
/// differentiable.
Output decode_padded_raw(const Output& input_bytes, std::int64_t fixed_length, DType out_type,
                         bool little_endian = true, std::string_view name = {});
/// `decode_padded_raw` with `fixed_length` an int32 scalar computed in the graph.
Output decode_padded_raw(const Output& input_bytes, const Output& fixed_length, DType out_type,
                         bool little_endian = true, std::string_view name = {});

/// `tf.io.serialize_tensor(tensor)`: op SerializeTensor (default name "SerializeTensor"), a
/// string scalar holding `tensor` as TensorFlow's TensorProto bytes: strings in `string_val`,
/// other dtypes' elements little-endian in `tensor_content` (none for an empty tensor); bit
/// for bit what TensorFlow writes. Not differentiable.
Output serialize_tensor(const Output& tensor, std::string_view name = {});

/// `tf.io.parse_tensor(serialized, out_type)`: op ParseTensor (default name "ParseTensor"),
/// the tensor the string scalar `serialized` holds as a TensorProto (raw `tensor_content`, or
/// typed values whose last repeats), of statically unknown shape. Running fails with
/// "Expected `serialized` to be a scalar, got shape: [2]", "Could not parse `serialized` as
/// TensorProto, base64: //8=", "Cannot parse tensor from proto: ..." (bad shape or content
/// size) and "Type mismatch between parsed tensor (int32) and dtype (float)" (also for
/// TensorFlow dtypes actorflow lacks: "(half)"). Not differentiable.
Output parse_tensor(const Output& serialized, DType out_type, std::string_view name = {});

}  // namespace af::io

/// Fingerprints and SparseTensors as strings or behind handles (TensorFlow's `tf.fingerprint`,
/// `tf.compat.v1.serialize_sparse`, `serialize_many_sparse`, `deserialize_many_sparse`,
/// `tf.raw_ops.DeserializeSparse` and the SparseTensorsMap ops; fingerprint_op.cc,
/// serialize_sparse_op.cc, deserialize_sparse_string_op.cc, sparse_tensors_map_ops.cc).
namespace af {

/// `tf.fingerprint(data, method)`: op Fingerprint (default name "Fingerprint", `method` the
/// string Const "<op>/method"), a uint8 `[data.shape[0], 8]`: FarmHash's Fingerprint64 of each
/// row's bytes (`data` of rank >= 1 and any value dtype; bools one byte each), written
/// little-endian; a string row of several elements is fingerprinted through its strings'
/// fingerprints. Errors: "Unsupported method: md5" (shape function, a constant method),
/// running: "Unsupported fingerprint method: md5", "`data` should have at least one
/// dimension: []". Not differentiable.
Output fingerprint(const Output& data, std::string_view method = "farmhash64",
                   std::string_view name = {});

/// `tf.io.serialize_sparse(sp_input)`: op SerializeSparse (default name "SerializeSparse"), a
/// string `[3]`: the TensorProto bytes (`tensor_content` form) of indices, values and
/// dense_shape, as TensorFlow writes them. `out_type` must be string (variant has no kernel).
/// Running fails with "Input indices should be a matrix but received shape [3]" and the like.
Output serialize_sparse(const SparseTensor& sp_input, DType out_type = DType::string,
                        std::string_view name = {});

/// `tf.io.serialize_many_sparse(sp_input)`: op SerializeManySparse (default name
/// "SerializeManySparse"), a string `[N, 3]` whose row b serializes batch entry b of the
/// rank > 1 `sp_input` (indices without their first coordinate, dense shape
/// `dense_shape[1:]`; empty entries too). Running fails with "Rank of input SparseTensor
/// should be > 1, but saw rank: 1" and SparseTensor::IndicesValid's "indices[1] = [0,2] is
/// out of order. ...", "... is repeated", "... is out of bounds: need 0 <= index < [2,3]".
Output serialize_many_sparse(const SparseTensor& sp_input, DType out_type = DType::string,
                             std::string_view name = {});

/// `tf.raw_ops.DeserializeSparse(serialized_sparse, dtype)` (default name
/// "DeserializeSparse"): the SparseTensors of a string `[..., 3]` concatenated along a new
/// first dimension and reshaped to `serialized.shape[:-1] + [the largest of each dimension]`
/// (entries in their serialized order); a single string `[3]` comes back as it was. Running
/// fails with "Serialized sparse should have 3 as the last dimension [2,4]", "Could not parse
/// serialized proto", "Requested SparseTensor of type float but SparseTensor[0].values.dtype()
/// == int32", "Inconsistent shape across SparseTensors: rank prior to SparseTensor[1] was: 2
/// but rank of SparseTensor[1] is: 1".
SparseTensor deserialize_sparse(const Output& serialized_sparse, DType dtype,
                                std::string_view name = {});

/// `tf.io.deserialize_many_sparse(serialized_sparse, dtype)`: op DeserializeManySparse
/// (default name "DeserializeManySparse") of a string `[N, 3]`, as `deserialize_sparse`.
/// Shape function: "Dimension must be 3 but is 4". Running fails with "Serialized sparse
/// should have at least 1 serialized tensor, but has a zero dimension [0,3]".
SparseTensor deserialize_many_sparse(const Output& serialized_sparse, DType dtype,
                                     std::string_view name = {});

/// `tf.raw_ops.AddSparseToTensorsMap` (stateful; default name "AddSparseToTensorsMap"): stores
/// `sp_input` in the session's SparseTensorsMap named `shared_name` (empty: this op's name) in
/// `container` (empty: the default one) and returns its handle, an int64 scalar; each map
/// numbers its handles 0, 1, 2, ... Running fails with "shared_name cannot start with
/// '_':_x", "container contains invalid characters: a b" and the shape checks of
/// `serialize_sparse`.
Output add_sparse_to_tensors_map(const SparseTensor& sp_input, std::string_view container = "",
                                 std::string_view shared_name = "", std::string_view name = {});

/// `tf.raw_ops.AddManySparseToTensorsMap` (stateful; default name
/// "AddManySparseToTensorsMap"): stores each batch entry of the rank > 1 `sp_input` (as
/// `serialize_many_sparse` splits it) and returns their handles, int64 `[N]`; the non-empty
/// entries get their handles first, in order, then the empty ones, as TensorFlow. Running
/// fails as `serialize_many_sparse` and with "Number of values must match first dimension of
/// indices. Got 2 values, indices shape: [3,2]".
Output add_many_sparse_to_tensors_map(const SparseTensor& sp_input, std::string_view container = "",
                                      std::string_view shared_name = "",
                                      std::string_view name = {});

/// `tf.raw_ops.TakeManySparseFromTensorsMap` (stateful; default name
/// "TakeManySparseFromTensorsMap"): the SparseTensors of the int64 vector `sparse_handles`,
/// taken out of the map (`container`, `shared_name`; an empty `shared_name` names a map
/// private to this op, which holds nothing) and concatenated along a new first dimension,
/// each later dimension the largest of theirs. Running fails with InvalidArgument "Unable to
/// find SparseTensor: 7 in map: NAME" (the handles before it are taken all the same), "Must
/// have at least 1 serialized SparseTensor, but input matrix has 0 rows", "Requested
/// SparseTensor of type float but SparseTensor[0].values.dtype() == int64", "Inconsistent rank
/// across SparseTensors: rank prior to SparseTensor[1] was: 3 but rank of SparseTensor[1] is:
/// 2".
SparseTensor take_many_sparse_from_tensors_map(const Output& sparse_handles, DType dtype,
                                               std::string_view container = "",
                                               std::string_view shared_name = "",
                                               std::string_view name = {});
/// Python's `take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles)`: the map of
/// `sparse_map_op` (an AddSparseToTensorsMap or AddManySparseToTensorsMap op: its container,
/// its shared_name or else its name, its dtype T). Throws InvalidArgumentError for another op
/// type.
SparseTensor take_many_sparse_from_tensors_map(const Operation& sparse_map_op,
                                               const Output& sparse_handles,
                                               std::string_view name = {});

}  // namespace af
