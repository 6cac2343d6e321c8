#pragma once

#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/placer.hpp"

namespace af {

/// One node of a partition, ready for an executor: inputs refer to nodes of the same
/// partition by index.
struct ExecNode {
  NodeDef def;                              ///< the node (its inputs rewritten for the partition)
  std::vector<std::pair<int, int>> inputs;  ///< (producer index, output index)
  std::vector<int> control_inputs;          ///< producer indices
  std::vector<DType> input_types;           ///< the inferred input dtypes
  std::vector<DType> output_types;          ///< the inferred output dtypes
  std::vector<bool> input_is_ref;           ///< the kernel takes input i as a reference
  int feed_index = -1;                      ///< for `_Feed` nodes: which feed it forwards
};

/// The part of a step that runs on one device; nodes are in topological order.
struct PartitionPlan {
  std::string device;           ///< the full name of the device
  std::vector<ExecNode> nodes;  ///< in topological order
  /// A fetched tensor this partition produces.
  struct Fetch {
    int fetch_index;  ///< index into the step's fetches
    int node;         ///< index into `nodes`
    int output;       ///< the node's output index
  };
  std::vector<Fetch> fetches;  ///< the fetches this partition produces
};

/// A pruned, placed and partitioned step, cached by sessions per (feeds, fetches, targets).
struct ExecutionPlan {
  std::vector<PartitionPlan> partitions;  ///< one per device the step uses
  /// For fetch k: the feed index when the fetched tensor is itself fed, else -1.
  std::vector<int> fetch_from_feed;
  /// Static dtype and shape of each feed (for checking fed values).
  std::vector<DType> feed_types;
  std::vector<PartialShape> feed_shapes;
  std::vector<std::string> feed_names;  ///< the fed tensors' names (`"x:0"`)
  /// Names of nodes placed by this plan's construction, in graph order.
  std::vector<std::string> newly_placed;
};

/// Prunes `g` to what `fetches` and `targets` need (stopping at fed tensors), places the
/// nodes (remembering placement in `*placement`), partitions them by device and inserts
/// `_Send`/`_Recv` pairs on cross-device edges (control edges included) and `_Feed` nodes.
/// The caller holds the graph's lock. Errors: InvalidArgument from the placer, NotFound for
/// names not in the graph.
Status build_execution_plan(const Graph& g, const std::vector<Output>& feeds,
                            const std::vector<Output>& fetches,
                            const std::vector<Operation>& targets,
                            const std::vector<DeviceAttributes>& devices,
                            const PlacerOptions& options, Placement* placement, ExecutionPlan* out);

/// Fuses each ReaderReadV2 / ReaderReadUpToV2 whose records feed exactly one DecodeCSV
/// (and whose keys, if used, only that DecodeCSV's error messages) into one
/// `_ReaderReadDecodeCSV` node in the DecodeCSV's place: the reader actor then decodes
/// lines straight from its file buffer instead of making a string per record and key.
/// Nothing observable changes: the same records are consumed, the outputs and errors are
/// the DecodeCSV's, and a record that fails to decode still ends the read as before. Reads
/// that are fetched, used elsewhere or waited on by control edges are left alone. The
/// read's slot becomes an unused NoOp (indices stay valid). Returns the number fused;
/// build_execution_plan calls it on every partition.
int fuse_reader_decode_csv(PartitionPlan& plan);

}  // namespace af
