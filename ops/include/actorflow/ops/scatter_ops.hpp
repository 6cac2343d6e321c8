#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// The sparse updates of a variable (TensorFlow's `tf.scatter_*` and the resource variables'
/// `ResourceScatter*`): `ref[indices[...], ...] op= updates[...]`, row by row.
///
/// `indices` (int32 or int64, any shape) names rows of the variable's first dimension;
/// `updates` has shape `indices.shape + ref.shape[1:]`, or is a scalar applied to every named
/// row. Rows named twice are updated twice, in order (`scatter_update`: the last one wins).
/// Each update is built colocated with its variable.
///
/// Running one fails with InvalidArgument:
/// - "params must be at least 1-D, got shape []" for a scalar variable;
/// - "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got
///   updates.shape [2,3], indices.shape [2], params.shape [5,4]";
/// - "indices[1] = 7 is not in [0, 5)" for the first index out of range (the rows before it
///   are already updated, as in TensorFlow).
///
/// On an uninitialized reference variable it fails with FailedPrecondition "Attempting to use
/// uninitialized value NAME". A read of the variable still in flight keeps the value it
/// read: the update then writes a copy (reads never see half an update), otherwise the rows
/// in place.
namespace af {

/// Op ScatterUpdate (default name "ScatterUpdate"): `ref[indices] = updates`. Outputs `ref`.
/// `use_locking` defaults to true as in TensorFlow; every update locks the variable.
Output scatter_update(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking = true, std::string_view name = {});
/// Op ScatterAdd: `ref[indices] += updates`. Outputs `ref`.
Output scatter_add(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});
/// Op ScatterSub: `ref[indices] -= updates`. Outputs `ref`.
Output scatter_sub(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});
/// Op ScatterMul: `ref[indices] *= updates`. Outputs `ref`.
Output scatter_mul(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});
/// Op ScatterDiv: `ref[indices] /= updates`. Outputs `ref`. An integer division by zero fails
/// with InvalidArgument "Integer division by zero" (TensorFlow's CPU kernel crashes).
Output scatter_div(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});
/// Op ScatterMin: `ref[indices] = min(ref[indices], updates)`. Outputs `ref`.
Output scatter_min(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});
/// Op ScatterMax: `ref[indices] = max(ref[indices], updates)`. Outputs `ref`.
Output scatter_max(const Output& ref, const Output& indices, const Output& updates,
                   bool use_locking = false, std::string_view name = {});

/// The resource variables' twins (`ResourceScatterUpdate`, ... `ResourceScatterMax`): the
/// variable given by its handle (a VarHandleOp's output), no output. `op` is one of
/// "Update", "Add", "Sub", "Mul", "Div", "Min", "Max"; another throws InvalidArgumentError.
/// Running one on a variable never assigned fails with NotFound "Resource localhost/NAME/
/// N10tensorflow3VarE does not exist." (TensorFlow's lookup), with another dtype than the
/// updates' with InvalidArgument "Trying to access resource NAME as int32 but it holds
/// float".
Operation resource_scatter(std::string_view op, const Output& handle, const Output& indices,
                           const Output& updates, std::string_view name = {});

}  // namespace af
