// ReadFile, WriteFile and MatchingFiles: CPU kernels as TensorFlow's whole_file_read_ops.cc
// and matching_files_op.cc over its POSIX file system (actorflow/ops/detail/file_system.hpp),
// with its messages ("x; No such file or directory"). Registered from serialize_io_ops.cpp;
// the definitions are in ops/src/defs/serialize_io_ops.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "actorflow/ops/detail/file_system.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::check_scheme;
using detail::dirname;
using detail::file_exists;
using detail::read_entire_file;
using detail::recursively_create_dir;
using detail::StatusKernel;
using detail::write_string_to_file;

// -- kernels ---------------------------------------------------------------------------------

// "<what> tensor must be scalar, but had shape: ..." unless `t` is a scalar.
Status check_scalar(const Tensor& t, const std::string& what) {
  if (t.rank() != 0)
    return invalid_argument(what +
                            " tensor must be scalar, but had shape: " + t.shape().to_string());
  return {};
}

// What the three file kernels share: each runs on its own (file system calls).
class FileKernel : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

  bool is_expensive(const OpKernelContext&) const override { return true; }
};

// ReadFile(filename): the file's bytes.
class ReadFileOp : public FileKernel {
 public:
  using FileKernel::FileKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& filename = ctx.input(0);
    ACTORFLOW_RETURN_IF_ERROR(check_scalar(filename, "Input filename"));
    std::string contents;
    ACTORFLOW_RETURN_IF_ERROR(read_entire_file(filename.data<std::string>()[0], &contents));
    ctx.set_output(0, Tensor(std::move(contents)));
    return {};
  }
};

// WriteFile(filename, contents): writes the file, making its missing directories first.
class WriteFileOp : public FileKernel {
 public:
  using FileKernel::FileKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& filename = ctx.input(0);
    const Tensor& contents = ctx.input(1);
    ACTORFLOW_RETURN_IF_ERROR(check_scalar(filename, "Input filename"));
    ACTORFLOW_RETURN_IF_ERROR(check_scalar(contents, "Contents"));
    const std::string& name = filename.data<std::string>()[0];
    ACTORFLOW_RETURN_IF_ERROR(check_scheme(name));
    const std::string dir = dirname(name);
    if (!file_exists(dir)) ACTORFLOW_RETURN_IF_ERROR(recursively_create_dir(dir));
    return write_string_to_file(name, contents.data<std::string>()[0]);
  }
};

// MatchingFiles(pattern): the paths matching any of the patterns (a scalar or vector), sorted.
class MatchingFilesOp : public FileKernel {
 public:
  using FileKernel::FileKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& patterns = ctx.input(0);
    if (patterns.rank() > 1)
      return invalid_argument("Input patterns tensor must be scalar or vector, but had shape: " +
                              patterns.shape().to_string());
    std::vector<std::string> names;
    for (const std::string& pattern : patterns.flat<std::string>()) {
      ACTORFLOW_RETURN_IF_ERROR(check_scheme(pattern));
      detail::matching_paths(pattern, &names);
    }
    std::sort(names.begin(), names.end());
    ctx.set_output(0, Tensor::from_vector(names));
    return {};
  }
};

}  // namespace

namespace detail {

void register_serialize_io_file_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ReadFileOp>("ReadFile", "CPU"));
  r.add(make_kernel_def<WriteFileOp>("WriteFile", "CPU"));
  r.add(make_kernel_def<MatchingFilesOp>("MatchingFiles", "CPU"));
}

}  // namespace detail

}  // namespace af
