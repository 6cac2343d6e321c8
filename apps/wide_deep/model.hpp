#pragma once

#include <actorflow/actorflow.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

/// The wide & deep click-through model of actorflow-wide-deep, built between-graph under
/// replica_device_setter.
namespace af::apps::wide_deep {

/// What the model is made of.
struct ModelOptions {
  int fields = 8;                               ///< categorical features per example
  std::int64_t rows = 1000000;                  ///< hash buckets: the embedding table's rows
  std::int64_t dim = 16;                        ///< the deep embedding's width
  std::vector<std::int64_t> hidden = {64, 32};  ///< the MLP's hidden layers
  double lr = 0.05;                             ///< Adagrad's learning rate
  int partitions = 0;                           ///< parts of the table (0: one per ps task)
  std::string mode = "async";                   ///< async, or sync (SyncReplicasOptimizer)
  int replicas_to_aggregate = 0;                ///< sync: gradients per update (0: the workers)
  int total_replicas = 0;                       ///< sync: workers computing them (0: the workers)
  bool dense_gradients = false;                 ///< densify the table's gradient (for comparison)
  bool resource_variables = false;  ///< the table's parts as resource variables (use_resource)
  std::int64_t seed = 42;           ///< graph-level random seed
  std::string worker_device;        ///< this worker's device ("/job:worker/task:0")
};

/// The built model.
struct Model {
  Output features;     ///< string [batch, fields] placeholder
  Output clicks;       ///< float32 [batch] placeholder
  Output loss;         ///< mean sigmoid cross-entropy
  Output probability;  ///< float32 [batch]: the predicted click probability
  Output unique_ids;   ///< int32 scalar: distinct table rows the batch touches
  Operation train_op;  ///< one Adagrad step (or the sync replica's part of one)
  Variable global_step;
  train::PartitionedVariable table;   ///< [rows, dim + 1]: deep embedding, then wide weight
  std::int64_t dense_parameters = 0;  ///< elements of the MLP and the bias
  std::unique_ptr<train::AdagradOptimizer> adagrad;
  std::unique_ptr<train::SyncReplicasOptimizer> sync;  ///< set in sync mode
};

/// Builds the model in `g`: the categorical strings hashed into `rows` buckets
/// (StringToHashBucketFast), the batch's distinct buckets looked up once in the partitioned
/// table `embeddings` (each part gathered on its own ps task), each row's first `dim`
/// columns concatenated over the fields into the MLP (the deep part) and its last column
/// summed over the fields (the wide part, a linear model on the hashed features), plus a
/// bias; Adagrad on the sigmoid cross-entropy, the table's gradient as IndexedSlices unless
/// `dense_gradients`.
Model build_model(Graph& g, const ClusterSpec& cluster, const ModelOptions& options, int workers);

}  // namespace af::apps::wide_deep
