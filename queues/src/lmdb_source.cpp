// LMDBReader's and LMDBDataset's source (TensorFlow's lmdb_reader_op.cc and
// lmdb_dataset_op.cc) over Debian's liblmdb: the database opened read-only with MDB_NOTLS and
// MDB_NOLOCK (MDB_NOSUBDIR when the name is a file), one read transaction, a cursor from
// MDB_FIRST through MDB_NEXT. TensorFlow's reader aborts the process on an LMDB error (CHECK);
// here it is InvalidArgument with LMDB's text, as TensorFlow's dataset reports it, and the
// file's name.
#include <lmdb.h>
#include <sys/stat.h>

#include <string>

#include "record_source.hpp"

namespace af::detail {

namespace {

class LmdbSource final : public RecordSource {
 public:
  ~LmdbSource() override { close(); }

  Status open(const std::string& filename) override {
    close();
    filename_ = filename;
    int rc = mdb_env_create(&env_);
    if (rc != MDB_SUCCESS) return error(rc);
    unsigned flags = MDB_RDONLY | MDB_NOTLS | MDB_NOLOCK;
    struct stat info {};
    if (::stat(filename.c_str(), &info) == 0 && S_ISREG(info.st_mode)) flags |= MDB_NOSUBDIR;
    rc = mdb_env_open(env_, filename.c_str(), flags, 0664);
    if (rc == MDB_SUCCESS) rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn_);
    if (rc == MDB_SUCCESS) rc = mdb_dbi_open(txn_, nullptr, 0, &dbi_);
    if (rc == MDB_SUCCESS) rc = mdb_cursor_open(txn_, dbi_, &cursor_);
    if (rc != MDB_SUCCESS) {
      const Status s = error(rc);
      close();
      return s;
    }
    started_ = false;
    return {};
  }

  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    if (cursor_ == nullptr) {
      *at_end = true;
      return {};
    }
    MDB_val k{}, v{};
    const int rc = mdb_cursor_get(cursor_, &k, &v, started_ ? MDB_NEXT : MDB_FIRST);
    started_ = true;
    if (rc == MDB_NOTFOUND) {
      *at_end = true;
      return {};
    }
    if (rc != MDB_SUCCESS) return error(rc);
    key->assign(static_cast<const char*>(k.mv_data), k.mv_size);
    value->assign(static_cast<const char*>(v.mv_data), v.mv_size);
    *produced = true;
    return {};
  }

  void close() override {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    if (txn_ != nullptr) mdb_txn_abort(txn_);
    if (env_ != nullptr) mdb_env_close(env_);
    cursor_ = nullptr;
    txn_ = nullptr;
    env_ = nullptr;
    dbi_ = 0;
  }

 private:
  Status error(int rc) const {
    return invalid_argument(std::string(mdb_strerror(rc)) + " (LMDB file " + filename_ + ")");
  }

  std::string filename_;
  MDB_env* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  MDB_dbi dbi_ = 0;
  MDB_cursor* cursor_ = nullptr;
  bool started_ = false;
};

}  // namespace

std::unique_ptr<RecordSource> make_lmdb_source() { return std::make_unique<LmdbSource>(); }

}  // namespace af::detail
