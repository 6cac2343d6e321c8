#include "model.hpp"

#include "trainer.hpp"

namespace af::apps::wide_deep {

Model build_model(Graph& g, const ClusterSpec& cluster, const ModelOptions& o, int workers) {
  Model m;
  auto setter = g.device(replica_device_setter(cluster, {.worker_device = o.worker_device}));
  g.set_random_seed(o.seed);
  m.global_step = train::get_or_create_global_step(g);
  m.features = g.placeholder(DType::string, PartialShape{-1, o.fields}, "features");
  m.clicks = g.placeholder(DType::float32, PartialShape{-1}, "clicks");
  const std::int64_t width = o.dim + 1;
  // Every field shares the hash space: a value's bucket is its row, the same on every task.
  const Output ids = string_to_hash_bucket_fast(m.features, o.rows, "hashed");
  auto [unique_ids, position] = unique(reshape(ids, std::vector<std::int64_t>{-1}, "flat_ids"));
  m.unique_ids = af::size(unique_ids, DType::int32, "unique_count");
  m.table =
      train::get_partitioned_variable(g, "embeddings", Shape{o.rows, width},
                                      {.initializer = initializers::random_uniform(-0.05, 0.05),
                                       .partitioner = train::fixed_size_partitioner(o.partitions),
                                       .use_resource = o.resource_variables});
  // Each distinct row crosses once per step; the batch's repeats are gathered here.
  const Output looked_up = train::embedding_lookup(m.table, unique_ids, {.name = "lookup"});
  const Output rows = reshape(gather(looked_up, position, "per_feature"),
                              std::vector<std::int64_t>{-1, o.fields, width}, "rows");
  const Output deep_in = reshape(slice(rows, {0, 0, 0}, {-1, -1, o.dim}, "deep_columns"),
                                 std::vector<std::int64_t>{-1, o.fields * o.dim}, "deep_in");
  const Output wide = reduce_sum(slice(rows, {0, 0, o.dim}, {-1, -1, 1}, "wide_column"),
                                 std::vector<std::int64_t>{1, 2}, false, "wide");
  std::vector<std::int64_t> sizes = {o.fields * o.dim};
  sizes.insert(sizes.end(), o.hidden.begin(), o.hidden.end());
  sizes.push_back(1);
  const auto mlp = mlp_variables(g, sizes);
  const Variable bias = initialized_variable(g, "wide_bias", Shape{}, initializers::zeros());
  for (const auto& v : mlp) m.dense_parameters += v.value().shape().num_elements();
  m.dense_parameters += 1;
  const Output deep = reshape(mlp_logits(deep_in, mlp), std::vector<std::int64_t>{-1}, "deep");
  const Output logit = add(add(deep, wide, "wide_and_deep"), bias.value(), "logit");
  m.loss = losses::sigmoid_cross_entropy(m.clicks, logit);
  m.probability = sigmoid(logit, "probability");

  m.adagrad = std::make_unique<train::AdagradOptimizer>(o.lr, 0.1);
  if (o.mode == "sync") {
    const int to_aggregate = o.replicas_to_aggregate > 0 ? o.replicas_to_aggregate : workers;
    const int total = o.total_replicas > 0 ? o.total_replicas : workers;
    m.sync = std::make_unique<train::SyncReplicasOptimizer>(*m.adagrad, to_aggregate, total);
  }
  auto grads = m.sync ? m.sync->compute_gradients(m.loss) : m.adagrad->compute_gradients(m.loss);
  if (o.dense_gradients)
    for (auto& gv : grads)
      if (gv.grad.is_slices()) gv.grad = gv.grad.to_dense();
  m.train_op = m.sync ? m.sync->apply_gradients(grads, m.global_step)
                      : m.adagrad->apply_gradients(grads, m.global_step);
  return m;
}

}  // namespace af::apps::wide_deep
