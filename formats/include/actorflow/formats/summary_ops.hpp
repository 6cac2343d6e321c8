#pragma once

/// TensorFlow 1.x's summary ops in graphs (`tf.compat.v1.summary`): ScalarSummary,
/// HistogramSummary and MergeSummary, each a node whose output is a serialized
/// `tensorflow.Summary` string for `af::summary::FileWriter::add_summary`.
///
///   af::Output s = af::summary::scalar("loss", loss);    // joins the "summaries" collection
///   af::Output all = af::summary::merge_all(g);           // MergeSummary of that collection
///   auto [bytes] = sess.run({all}) ...; writer.add_summary(bytes.scalar<std::string>(), step);

#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"

namespace af::summary {

/// The collection summary ops join by default (`tf.GraphKeys.SUMMARIES`).
inline constexpr const char* kSummariesCollection = "summaries";

/// Registers ScalarSummary, HistogramSummary and MergeSummary with their CPU kernels (once;
/// the functions below and servers call it).
void register_summary_ops();

/// `tf.compat.v1.summary.scalar(name, tensor)`: op ScalarSummary named after the
/// uniquified name scope `name` (illegal tag characters replaced by `_`), whose tag is that
/// scope's full name; `tensor` is a real-valued scalar. Added to `collections` (default
/// {"summaries"}; an empty list adds it nowhere). Running it with tags and values of different
/// shapes fails with InvalidArgument "tags and values are not the same shape: ...".
Output scalar(const std::string& name, const Output& tensor,
              const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.histogram(name, values)`: op HistogramSummary over all elements
/// of `values` (TensorFlow's default buckets). Running it over a NaN or an infinity fails
/// with InvalidArgument "Nan in summary histogram for: <op name>".
Output histogram(const std::string& name, const Output& values,
                 const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.merge(inputs)`: op MergeSummary (scope "Merge") of serialized
/// summaries; a tag seen twice fails with InvalidArgument "Duplicate tag ... found in summary
/// inputs".
Output merge(const std::vector<Output>& inputs, const std::string& name = {});

/// `tf.compat.v1.summary.merge_all()`: `merge` of the summaries in collection `key`, or
/// nullopt when it is empty (TensorFlow returns None).
std::optional<Output> merge_all(Graph& g, const std::string& key = kSummariesCollection);

}  // namespace af::summary
