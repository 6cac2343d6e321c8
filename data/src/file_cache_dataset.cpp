// `Dataset.cache(filename)` (TensorFlow's CacheDataset with a file name, cache_dataset_ops.cc):
// the first iterator that finds no `<filename>.index` writes every element into a tensor
// bundle, element i's component j under the key "%7zu_%Nzu" (i right-aligned in 7
// characters, j in as many as the largest component index has), first as `<filename>_0`
// beside the lock file `<filename>_0.lockfile`, merged into `<filename>` when the input ends.
// Iterators made once the index exists read the bundle instead, in key order. A writer
// dropped before the end removes its files, so the next iterator writes again. The files
// are TensorFlow's: each side reads the other's cache.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actorflow/ops/tensor_bundle.hpp"
#include "dataset_base.hpp"
#include "dataset_factories.hpp"

namespace af::data::detail {

namespace {

/// TensorFlow's limit on the elements of one cache (kMaxItems).
constexpr std::int64_t kMaxItems = 10000000;

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

class FileCacheDataset final : public UnaryDataset {
 public:
  FileCacheDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::string filename,
                   std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        filename_(std::move(filename)),
        tensor_digits_(
            std::to_string(this->dtypes().empty() ? 0 : this->dtypes().size() - 1).size()) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    if (exists(bundle_index_filename(filename_))) return std::make_unique<Reader>(*this);
    return std::make_unique<Writer>(*this);
  }
  std::int64_t cardinality() const override { return input().cardinality(); }

 private:
  /// The key of component `j` of element `i`.
  std::string key(std::int64_t i, std::size_t j) const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%*lld_%*zu", 7, static_cast<long long>(i),
                  static_cast<int>(tensor_digits_), j);
    return buf;
  }

  struct Writer final : DatasetIterator<FileCacheDataset> {
    explicit Writer(const FileCacheDataset& d)
        : DatasetIterator(d), shard(d.filename_ + "_0"), lockfile(shard + ".lockfile") {}
    ~Writer() override {
      if (done) return;
      // Incomplete: TensorFlow deletes `<filename>_0*`, so the next iterator writes anew.
      writer.reset();
      if (!locked) return;
      std::error_code ec;
      std::filesystem::remove(lockfile, ec);
      std::filesystem::remove(bundle_index_filename(shard), ec);
      std::filesystem::remove(bundle_data_filename(shard, 0, 1), ec);
    }

    Status lock() {
      if (exists(bundle_index_filename(shard)))
        return already_exists("Existing cache files found: \n" + bundle_index_filename(shard) +
                              "\n" + bundle_data_filename(shard, 0, 1) +
                              "\nTo continue delete the above files.");
      if (exists(lockfile)) {
        std::ifstream in(lockfile);
        std::string contents(150, '\0');
        in.read(contents.data(), 150);
        contents.resize(static_cast<std::size_t>(in.gcount()));
        return already_exists(
            "There appears to be a concurrent caching iterator running - cache lockfile "
            "already exists ('" +
            lockfile +
            "'). If you are sure no other running TF computations are using this cache "
            "prefix, delete the lockfile and re-initialize the iterator. Lockfile contents: " +
            contents);
      }
      std::ofstream out(lockfile, std::ios::binary);
      out << "Created at: "
          << std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
      if (!out)
        return Status(Code::permission_denied, lockfile + ": cannot create the cache's lock file");
      locked = true;
      writer = std::make_unique<BundleWriter>(shard);
      return writer->status();
    }

    Status finish() {
      done = true;
      ACTORFLOW_RETURN_IF_ERROR(writer->finish());
      writer.reset();
      ACTORFLOW_RETURN_IF_ERROR(merge_bundles({shard}, ds->filename_, false));
      std::error_code ec;
      std::filesystem::remove(lockfile, ec);
      return {};
    }

    Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
      *end = done;
      if (done) return {};
      if (!input) input = ds->input().make_iterator();
      if (!locked) ACTORFLOW_RETURN_IF_ERROR(lock());
      ACTORFLOW_RETURN_IF_ERROR(writer->status());
      if (index >= kMaxItems) {
        (void)finish();
        return invalid_argument("Upstream iterator is producing more than " +
                                std::to_string(kMaxItems) +
                                " items, which is more than the cache limit.");
      }
      ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, out, end));
      if (*end) return finish();
      if (out->size() != ds->dtypes().size())
        return internal("Upstream iterator returned invalid number of tensors. Expected " +
                        std::to_string(ds->dtypes().size()) +
                        " got: " + std::to_string(out->size()));
      for (std::size_t j = 0; j < out->size(); ++j)
        ACTORFLOW_RETURN_IF_ERROR(writer->add(ds->key(index, j), (*out)[j]));
      ++index;
      return {};
    }

    std::string shard, lockfile;
    std::unique_ptr<IteratorBase> input;
    std::unique_ptr<BundleWriter> writer;
    std::int64_t index = 0;
    bool locked = false, done = false;
  };

  struct Reader final : DatasetIterator<FileCacheDataset> {
    explicit Reader(const FileCacheDataset& d)
        : DatasetIterator(d), reader(std::make_unique<BundleReader>(d.filename_)) {
      if (reader->status().ok())
        for (const auto& e : reader->entries()) names.push_back(e.name);
    }

    Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
      ACTORFLOW_RETURN_IF_ERROR(reader->status());
      const std::size_t n = ds->dtypes().size();
      *end = next + n > names.size();
      if (*end) return {};
      out->clear();
      for (std::size_t j = 0; j < n; ++j) {
        auto t = reader->lookup(names[next + j]);
        if (!t.ok()) return t.status();
        out->push_back(std::move(*t));
      }
      next += n;
      return {};
    }

    std::unique_ptr<BundleReader> reader;
    std::vector<std::string> names;  // the keys, in order
    std::size_t next = 0;
  };

  std::string filename_;
  std::size_t tensor_digits_;
};

}  // namespace

std::shared_ptr<const DatasetBase> make_file_cache_dataset(std::string op,
                                                           std::shared_ptr<const DatasetBase> input,
                                                           std::string filename,
                                                           std::vector<DType> dtypes,
                                                           std::vector<PartialShape> shapes) {
  return std::make_shared<FileCacheDataset>(std::move(op), std::move(input), std::move(filename),
                                            std::move(dtypes), std::move(shapes));
}

}  // namespace af::data::detail
