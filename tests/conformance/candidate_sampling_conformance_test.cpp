// The candidate samplers and the sampled losses against TensorFlow: tests/data/tf_sampled
// (scripts/peers/make_sampled_fixtures.py) is TensorFlow's graph of every sampler kind with
// its seeds, ComputeAccidentalHits, sampled_softmax_loss and nce_loss with their gradients,
// and the values of three runs of it in one session. Imported and run the same way here,
// the samplers give TensorFlow's candidates and expected counts run after run (the learned
// sampler learning alike), and the losses its values; built here with actorflow's builders
// and the same seeds, the vocabulary-file sampler and both losses do too.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/candidate_sampling_ops.hpp>
#include <actorflow/train/sampled_losses.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "op_test_util.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::fixture::Tolerance;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_sampled";

nlohmann::json reference() {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

// A float32 or int64 tensor of a fixture value.
Tensor tensor_of(const nlohmann::json& v) {
  std::vector<std::int64_t> dims = v["shape"].get<std::vector<std::int64_t>>();
  const std::string dtype = v["dtype"].get<std::string>();
  const DType t = dtype == "int64" ? DType::int64 : DType::float32;
  Tensor out(t, Shape(dims));
  const auto& values = v["values"];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (t == DType::int64)
      out.data<std::int64_t>()[i] = values[i].get<std::int64_t>();
    else
      out.data<float>()[i] = values[i].get<float>();
  }
  return out;
}

// Integers exactly; expected counts and losses within float rounding (TensorFlow's Eigen
// and actorflow's kernels may add in another order).
Tolerance tolerance_for(const nlohmann::json& want) {
  Tolerance t;
  t.exact = want["dtype"].get<std::string>() != "float32";
  t.relative = 2e-6;
  t.absolute = 2e-6;
  return t;
}

void check_all(const std::vector<Tensor>& got, const nlohmann::json& want,
               const std::vector<std::string>& names) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) BOOST_TEST_CONTEXT(names[i]) {
      af::test::fixture::check(got[i], want[i], tolerance_for(want[i]));
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(candidate_sampling_conformance_test)

// TensorFlow's graph imported and run three times in one session: every sampler's
// candidates and expected counts, ComputeAccidentalHits and both losses and their gradients
// as TensorFlow computed them, including the learned sampler's counts after each run.
BOOST_AUTO_TEST_CASE(imported_samplers_and_losses_give_tensorflows_values,
                     *boost::unit_test::timeout(120)) {
  const nlohmann::json ref = reference();
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  for (const auto& run : ref["runs"]) {
    std::vector<Output> fetches;
    std::vector<std::string> names;
    for (const auto& n : run["fetches"]) {
      names.push_back(n.get<std::string>());
      fetches.push_back(g.output(names.back()));
    }
    check_all(sess.run(fetches), run["values"], names);
  }
}

// The vocabulary-file sampler built here (the file's last column, distortion, reserved ids)
// draws TensorFlow's candidates for the same seeds, three runs in a row.
BOOST_AUTO_TEST_CASE(vocab_file_sampler_built_here_draws_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  const nlohmann::json v = reference()["vocab"];
  af::Graph g;
  g.set_random_seed(v["seed"][0].get<std::int64_t>());
  Tensor classes(DType::int64, Shape{2, 2});
  const auto rows = v["true_classes"].get<std::vector<std::vector<std::int64_t>>>();
  for (std::size_t i = 0; i < 4; ++i) classes.data<std::int64_t>()[i] = rows[i / 2][i % 2];
  af::FixedUnigramOptions options;
  options.vocab_file = (dir / "vocab.csv").string();
  options.distortion = v["distortion"].get<float>();
  options.num_reserved_ids = v["num_reserved_ids"].get<std::int64_t>();
  const af::CandidateSamplerOutputs s = af::fixed_unigram_candidate_sampler(
      g.constant(classes, "true_classes"), v["num_true"].get<std::int64_t>(),
      v["num_sampled"].get<std::int64_t>(), v["unique"].get<bool>(),
      v["range_max"].get<std::int64_t>(), options, v["seed"][1].get<std::int64_t>());
  af::Session sess(g);
  for (const auto& want : v["runs"])
    check_all(sess.run({s.sampled_candidates, s.true_expected_count, s.sampled_expected_count}),
              want, {"sampled_candidates", "true_expected_count", "sampled_expected_count"});
}

// sampled_softmax_loss (two parts split "div", its own sampler seed) and nce_loss (a given
// LogUniform sampler, "mod", accidental hits removed) built here give TensorFlow's losses,
// then, in a second run, its gradients with respect to both parts, the biases and the inputs.
BOOST_AUTO_TEST_CASE(sampled_losses_built_here_equal_tensorflows, *boost::unit_test::timeout(60)) {
  const nlohmann::json ref = reference();
  const nlohmann::json& l = ref["losses"];
  af::Graph g;
  g.set_random_seed(l["graph_seed"].get<std::int64_t>());
  const Tensor w = tensor_of(l["weights"]);
  const std::int64_t half = w.shape().dim(0) / 2, dim = w.shape().dim(1);
  Tensor w0(DType::float32, Shape{half, dim}), w1(DType::float32, Shape{half, dim});
  std::copy_n(w.data<float>(), half * dim, w0.data<float>());
  std::copy_n(w.data<float>() + half * dim, half * dim, w1.data<float>());
  const Output p0 = g.constant(w0, "w0"), p1 = g.constant(w1, "w1");
  const Output biases = g.constant(tensor_of(l["biases"]), "biases");
  const Output inputs = g.constant(tensor_of(l["inputs"]), "inputs");
  const Output labels = g.constant(tensor_of(l["labels"]), "labels");
  const std::int64_t num_sampled = l["num_sampled"].get<std::int64_t>();
  const std::int64_t num_classes = l["num_classes"].get<std::int64_t>();
  const std::int64_t num_true = l["num_true"].get<std::int64_t>();

  af::train::SampledLossOptions softmax_options;
  softmax_options.num_true = num_true;
  softmax_options.partition_strategy = "div";
  softmax_options.seed = l["softmax_seed"].get<std::int64_t>();
  const Output softmax = af::train::sampled_softmax_loss({p0, p1}, {biases}, labels, inputs,
                                                         num_sampled, num_classes, softmax_options);
  af::train::SampledLossOptions nce_options;
  nce_options.num_true = num_true;
  nce_options.remove_accidental_hits = true;
  nce_options.sampled_values = af::log_uniform_candidate_sampler(
      labels, num_true, num_sampled, true, num_classes, l["nce_seed"].get<std::int64_t>());
  const Output nce = af::train::nce_loss({p0, p1}, {biases}, labels, inputs, num_sampled,
                                         num_classes, nce_options);
  std::vector<Output> grads;
  for (const Output& loss : {softmax, nce})
    for (const Output& grad :
         af::gradients({af::reduce_sum(loss, std::nullopt, false)}, {p0, p1, biases, inputs}))
      grads.push_back(grad);

  // TensorFlow's values of the losses (run 1) and of the gradients (run 2) by name.
  std::map<std::string, nlohmann::json> values;
  for (const auto& run : ref["runs"])
    for (std::size_t i = 0; i < run["fetches"].size(); ++i)
      values.emplace(run["fetches"][i].get<std::string>(), run["values"][i]);
  af::Session sess(g);
  check_all(sess.run({softmax, nce}),
            nlohmann::json::array({values.at(l["softmax"].get<std::string>()),
                                   values.at(l["nce"].get<std::string>())}),
            {"sampled_softmax_loss", "nce_loss"});
  nlohmann::json want = nlohmann::json::array();
  std::vector<std::string> names;
  for (const auto& n : l["grads"]) {
    names.push_back(n.get<std::string>());
    want.push_back(values.at(names.back()));
  }
  check_all(sess.run(grads), want, names);
}

// TensorFlow's refusals, at construction and when run; ComputeAccidentalHits of a run's
// candidates.
BOOST_AUTO_TEST_CASE(bad_samplers_fail_as_tensorflows, *boost::unit_test::timeout(60)) {
  af::test::TempDir tmp;
  af::Graph g;
  const Output classes = g.placeholder(DType::int64, af::PartialShape({-1, 2}), "classes");
  BOOST_CHECK_EXCEPTION(af::uniform_candidate_sampler(classes, 2, 0, true, 10),
                        af::InvalidArgumentError, [](const af::InvalidArgumentError& e) {
                          return std::string(e.what()).find(
                                     "Value for attr 'num_sampled' of 0 must be at least "
                                     "minimum 1") != std::string::npos;
                        });
  BOOST_CHECK_THROW(
      af::log_uniform_candidate_sampler(g.constant(Tensor(std::int64_t{1})), 1, 2, true, 10),
      af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::learned_unigram_candidate_sampler(classes, 2, 2, true, 1LL << 31),
                    af::InvalidArgumentError);
  const auto too_few = af::uniform_candidate_sampler(classes, 2, 11, true, 10, 1, "too_few");
  const auto uniform = af::uniform_candidate_sampler(classes, 2, 3, false, 10, 1, "uniform");
  af::FixedUnigramOptions bad_line;
  bad_line.vocab_file = tmp.write("bad.csv", "a,1\nb,x\n");
  const auto bad = af::fixed_unigram_candidate_sampler(classes, 2, 1, true, 2, bad_line, 1, "bad");
  af::FixedUnigramOptions short_list;
  short_list.unigrams = {1.0f, 2.0f};
  short_list.num_reserved_ids = 1;
  const auto mismatch =
      af::fixed_unigram_candidate_sampler(classes, 2, 1, true, 4, short_list, 1, "mismatch");
  af::FixedUnigramOptions missing;
  missing.vocab_file = tmp.file("missing.csv").string();
  const auto absent = af::fixed_unigram_candidate_sampler(classes, 2, 1, true, 2, missing, 1);
  const auto neither =
      af::fixed_unigram_candidate_sampler(classes, 2, 1, true, 2, af::FixedUnigramOptions{}, 1);
  const af::AccidentalHits hits =
      af::compute_accidental_hits(classes, uniform.sampled_candidates, 2);
  BOOST_CHECK_THROW(af::compute_accidental_hits(classes, classes, 2), af::InvalidArgumentError);
  af::Session sess(g);
  const Tensor ok = Tensor::from_vector(std::vector<std::int64_t>{1, 2, 3, 4}, Shape{2, 2});
  const af::FeedDict feeds{{classes, ok}};
  af::test::fails_with(sess, too_few.sampled_candidates, "Sampler's range is too small.", feeds);
  af::test::fails_with(
      sess, uniform.sampled_candidates, "`true_candidate` out of range [0, 10), received 12",
      {{classes, Tensor::from_vector(std::vector<std::int64_t>{1, 12}, Shape{1, 2})}});
  af::test::fails_with(sess, bad.sampled_candidates, "Wrong vocabulary format at line: b,x", feeds);
  af::test::fails_with(sess, mismatch.sampled_candidates,
                       "range is 4 must be equal to weights size  3", feeds);
  af::test::fails_with(sess, absent.sampled_candidates, "missing.csv; No such file or directory",
                       feeds);
  af::test::fails_with(sess, neither.sampled_candidates,
                       "Must provide either vocab_file or unigrams.", feeds);
  // Hits of the drawn candidates: each true class equal to one, at that candidate's position.
  const std::vector<Tensor> got =
      sess.run({uniform.sampled_candidates, hits.indices, hits.ids}, feeds);
  const std::int64_t* c = got[0].data<std::int64_t>();
  std::int64_t expected = 0;
  for (std::int64_t row = 0; row < 2; ++row)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 2; k >= 0; --k)
        if (c[k] == ok.data<std::int64_t>()[row * 2 + j]) {
          BOOST_TEST(got[1].data<std::int32_t>()[expected] == row);
          BOOST_TEST(got[2].data<std::int64_t>()[expected] == k);
          ++expected;
          break;
        }
  BOOST_TEST(got[1].num_elements() == expected);
}

BOOST_AUTO_TEST_SUITE_END()
