// Tensor::to_string against NumPy's str(ndarray) (what `print(sess.run(x))` shows in
// TensorFlow 1.x; rank-0 results print as NumPy scalars, which sess.run returns).
//
// Every expected string below was produced by NumPy 1.26.4 (the NumPy 1.x line that
// TensorFlow 1.x ran with; ml_dtypes 0.4.1 for bfloat16) as str() of: np.asarray(values,
// dtype) for arrays; np.float32(v), np.float64(v), np.int32(v), ... for scalars;
// (np.arange(n, dtype=t) * t(scale)).reshape(shape) for the iota cases; object arrays of
// bytes for string tensors and bytes objects for string scalars. (NumPy >= 2.3 prints
// float32 in scientific notation from 1e6 instead of 1e8; the 1.x behaviour is kept.)
// Tensor::to_string also matched NumPy 1.26.4 on 9000 random float32/float64/int64
// tensors (ranks 0-3, magnitudes 1e-320..1e308, nan/inf, summarised sizes).
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/tensor.hpp"

using namespace af;

namespace {

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
constexpr float kInff = std::numeric_limits<float>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
  std::string name;
  Tensor tensor;
  std::string expected;
};

void check_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) { BOOST_CHECK_EQUAL(c.tensor.to_string(), c.expected); }
  }
}

Tensor uint8_scalar(std::uint8_t v) {
  Tensor t(DType::uint8, Shape{});
  t.data<std::uint8_t>()[0] = v;
  return t;
}

// np.arange(n, dtype=T) * T(scale), reshaped to `shape`.
template <class T>
Tensor iota(Shape shape, T scale) {
  Tensor t(dtype_of_v<T>, shape);
  T* p = t.data<T>();
  for (std::int64_t i = 0; i < t.num_elements(); ++i)
    p[i] = static_cast<T>(static_cast<T>(i) * scale);
  return t;
}

Tensor bfloat16_vector(const std::vector<float>& values) {
  Tensor t(DType::bfloat16, Shape{static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) t.data<bfloat16_t>()[i] = bfloat16_t(values[i]);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_format_test)

BOOST_AUTO_TEST_CASE(scalars_print_as_numpy_scalars) {
  check_cases({
      {"float32 scalar 12.0", Tensor(12.0f), "12.0"},
      {"float32 scalar 0.1", Tensor(0.10000000149011612f), "0.1"},
      {"float32 scalar 1e-05", Tensor(9.999999747378752e-06f), "1e-05"},
      {"float32 scalar 1e+16", Tensor(1.0000000272564224e+16f), "1e+16"},
      {"float32 scalar -0.0", Tensor(-0.0f), "-0.0"},
      {"float32 scalar 0.0001", Tensor(9.999999747378752e-05f), "1e-04"},
      {"float32 scalar 123456.789", Tensor(123456.7890625f), "123456.79"},
      {"float32 scalar 3.3000002", Tensor(3.3000001907348633f), "3.3000002"},
      {"float32 scalar -2.5", Tensor(-2.5f), "-2.5"},
      {"float32 scalar nan", Tensor(kNaNf), "nan"},
      {"float32 scalar inf", Tensor(kInff), "inf"},
      {"float32 scalar -inf", Tensor(-kInff), "-inf"},
      {"float32 scalar 1e-45", Tensor(1.401298464324817e-45f), "1e-45"},
      {"float32 scalar 3.4e+38", Tensor(3.3999999521443642e+38f), "3.4e+38"},
      {"float32 scalar 155524832.0", Tensor(155524832.0f), "155524830.0"},
      {"float32 scalar 29242002.0", Tensor(29242002.0f), "29242002.0"},
      {"float64 scalar 0.1", Tensor(0.1), "0.1"},
      {"float64 scalar 0.3333333333333333", Tensor(0.3333333333333333), "0.3333333333333333"},
      {"float64 scalar 1e+22", Tensor(1e+22), "1e+22"},
      {"float64 scalar 2.5e-07", Tensor(2.5e-07), "2.5e-07"},
      {"float64 scalar 1e+16", Tensor(1e+16), "1e+16"},
      {"float64 scalar 9999999999999998.0", Tensor(9999999999999998.0), "9999999999999998.0"},
      {"float64 scalar 5e-324", Tensor(5e-324), "5e-324"},
      {"float64 scalar 12224544768.0", Tensor(12224544768.0), "12224544768.0"},
      {"int32 scalar", Tensor(-7), "-7"},
      {"int64 scalar", Tensor(std::int64_t{1099511627776}), "1099511627776"},
      {"uint8 scalar", uint8_scalar(255), "255"},
      {"bool scalar true", Tensor(true), "True"},
      {"bool scalar false", Tensor(false), "False"},
  });
}

BOOST_AUTO_TEST_CASE(floating_arrays_use_numpy_float_formatting) {
  check_cases({
      {"float32 [1, 2.5, 3]", Tensor::from_vector<float>({1.0f, 2.5f, 3.0f}, Shape{3}),
       "[1.  2.5 3. ]"},
      {"float32 [0.1, 0.2, 0.3]",
       Tensor::from_vector<float>(
           {0.10000000149011612f, 0.20000000298023224f, 0.30000001192092896f}, Shape{3}),
       "[0.1 0.2 0.3]"},
      {"float32 [1, 10000.0]", Tensor::from_vector<float>({1.0f, 10000.0f}, Shape{2}),
       "[1.e+00 1.e+04]"},
      {"float32 [1e-05, 1.5e-05]",
       Tensor::from_vector<float>({9.999999747378752e-06f, 1.4999999621068127e-05f}, Shape{2}),
       "[1.0e-05 1.5e-05]"},
      {"float32 [1, nan, -inf]", Tensor::from_vector<float>({1.0f, kNaNf, -kInff}, Shape{3}),
       "[  1.  nan -inf]"},
      {"float32 [nan, nan]", Tensor::from_vector<float>({kNaNf, kNaNf}, Shape{2}), "[nan nan]"},
      {"float32 [inf, 1.5]", Tensor::from_vector<float>({kInff, 1.5f}, Shape{2}), "[inf 1.5]"},
      {"float32 [0, 0]", Tensor::from_vector<float>({0.0f, 0.0f}, Shape{2}), "[0. 0.]"},
      {"float32 [-1.5, 2]", Tensor::from_vector<float>({-1.5f, 2.0f}, Shape{2}), "[-1.5  2. ]"},
      {"float32 [100000000.0, 1]", Tensor::from_vector<float>({100000000.0f, 1.0f}, Shape{2}),
       "[1.e+08 1.e+00]"},
      {"float32 [123456.7, 0.25]", Tensor::from_vector<float>({123456.703125f, 0.25f}, Shape{2}),
       "[1.234567e+05 2.500000e-01]"},
      {"float32 [-1e-05, 20000000000.0]",
       Tensor::from_vector<float>({-9.999999747378752e-06f, 20000000000.0f}, Shape{2}),
       "[-1.e-05  2.e+10]"},
      {"float32 [0.3333333333333333, 0.6666666666666666, 1]",
       Tensor::from_vector<float>({0.3333333432674408f, 0.6666666865348816f, 1.0f}, Shape{3}),
       "[0.33333334 0.6666667  1.        ]"},
      {"float32 [0.0001, 0.5]",
       Tensor::from_vector<float>({9.999999747378752e-05f, 0.5f}, Shape{2}), "[1.e-04 5.e-01]"},
      {"float32 [99999999, 1]", Tensor::from_vector<float>({100000000.0f, 1.0f}, Shape{2}),
       "[1.e+08 1.e+00]"},
      {"float32 [0.0001, 0.1]",
       Tensor::from_vector<float>({9.999999747378752e-05f, 0.10000000149011612f}, Shape{2}),
       "[1.e-04 1.e-01]"},
      {"float32 [0, -0.0, 5]", Tensor::from_vector<float>({0.0f, -0.0f, 5.0f}, Shape{3}),
       "[ 0. -0.  5.]"},
      {"float32 [1234.5678, -0.001]",
       Tensor::from_vector<float>({1234.5677490234375f, -0.0010000000474974513f}, Shape{2}),
       "[ 1.2345677e+03 -1.0000000e-03]"},
      {"float32 [1e+30, -1e-30]",
       Tensor::from_vector<float>({1.0000000150474662e+30f, -1.0000000031710769e-30f}, Shape{2}),
       "[ 1.e+30 -1.e-30]"},
      {"float32 [7, 7000]", Tensor::from_vector<float>({7.0f, 7000.0f}, Shape{2}), "[   7. 7000.]"},
      {"float32 [-67684312, -1448380.5]",
       Tensor::from_vector<float>({-67684312.0f, -1448380.5f}, Shape{2}),
       "[-67684312.   -1448380.5]"},
      {"float32 [5704588.5, -5437661.5]",
       Tensor::from_vector<float>({5704588.5f, -5437661.5f}, Shape{2}), "[ 5704588.5 -5437661.5]"},
      {"float64 [0.3333333333333333, 0.6666666666666666]",
       Tensor::from_vector<double>({0.3333333333333333, 0.6666666666666666}, Shape{2}),
       "[0.33333333 0.66666667]"},
      {"float64 [1e-05, 1e+100]", Tensor::from_vector<double>({1e-05, 1e+100}, Shape{2}),
       "[1.e-005 1.e+100]"},
      {"float64 [0.1, 1e-20]", Tensor::from_vector<double>({0.1, 1e-20}, Shape{2}),
       "[1.e-01 1.e-20]"},
      {"float64 [1.0, 2.0]", Tensor::from_vector<double>({1.0, 2.0}, Shape{2}), "[1. 2.]"},
      {"float64 [123456789.123, 1]", Tensor::from_vector<double>({123456789.123, 1.0}, Shape{2}),
       "[1.23456789e+08 1.00000000e+00]"},
      {"float64 [3.14159265358979, 2.718281828459045]",
       Tensor::from_vector<double>({3.14159265358979, 2.718281828459045}, Shape{2}),
       "[3.14159265 2.71828183]"},
  });
}

BOOST_AUTO_TEST_CASE(integer_arrays_are_right_aligned) {
  check_cases({
      {"int32 vector", Tensor::from_vector<std::int32_t>({1, 2, 3}, Shape{3}), "[1 2 3]"},
      {"int32 mixed widths", Tensor::from_vector<std::int32_t>({-1, 100, 7}, Shape{3}),
       "[ -1 100   7]"},
      {"int64 vector",
       Tensor::from_vector<std::int64_t>({std::int64_t{1099511627776}, std::int64_t{-5}}, Shape{2}),
       "[1099511627776            -5]"},
      {"uint8 vector",
       Tensor::from_vector<std::uint8_t>({std::uint8_t(0), std::uint8_t(255), std::uint8_t(17)},
                                         Shape{3}),
       "[  0 255  17]"},
  });
}

BOOST_AUTO_TEST_CASE(bool_arrays_pad_true) {
  check_cases({
      {"bool vector", Tensor::from_vector<bool>({true, false}, Shape{2}), "[ True False]"},
      {"bool all false", Tensor::from_vector<bool>({false, false}, Shape{2}), "[False False]"},
      {"bool all true", Tensor::from_vector<bool>({true, true}, Shape{2}), "[ True  True]"},
  });
}

BOOST_AUTO_TEST_CASE(large_arrays_are_summarised_with_ellipses) {
  check_cases({
      {"float32 summarised vector", iota<float>(Shape{1001}, 0.5f),
       "[  0.    0.5   1.  ... 499.  499.5 500. ]"},
      {"float32 summarised matrix", iota<float>(Shape{100, 100}, 0.01f),
       "[[0.0000000e+00 9.9999998e-03 2.0000000e-02 ... 9.6999997e-01\n  9.7999996e-01 "
       "9.8999995e-01]\n [1.0000000e+00 1.0100000e+00 1.0200000e+00 ... 1.9699999e+00\n  "
       "1.9799999e+00 1.9900000e+00]\n [2.0000000e+00 2.0100000e+00 2.0200000e+00 ... "
       "2.9700000e+00\n  2.9800000e+00 2.9900000e+00]\n ...\n [9.7000000e+01 9.7009995e+01 "
       "9.7019997e+01 ... 9.7970001e+01\n  9.7979996e+01 9.7989998e+01]\n [9.8000000e+01 "
       "9.8009995e+01 9.8019997e+01 ... 9.8970001e+01\n  9.8979996e+01 9.8989998e+01]\n "
       "[9.9000000e+01 9.9009995e+01 9.9019997e+01 ... 9.9970001e+01\n  9.9979996e+01 "
       "9.9989998e+01]]"},
      {"float64 summarised scientific", iota<double>(Shape{2000}, 100000.0),
       "[0.000e+00 1.000e+05 2.000e+05 ... 1.997e+08 1.998e+08 1.999e+08]"},
      {"int32 summarised vector", iota<std::int32_t>(Shape{2000}, 1),
       "[   0    1    2 ... 1997 1998 1999]"},
      {"int64 summarised 3-d", iota<std::int64_t>(Shape{20, 10, 10}, std::int64_t{1}),
       "[[[   0    1    2 ...    7    8    9]\n  [  10   11   12 ...   17   18   19]\n  [  20   21 "
       "  22 ...   27   28   29]\n  ...\n  [  70   71   72 ...   77   78   79]\n  [  80   81   82 "
       "...   87   88   89]\n  [  90   91   92 ...   97   98   99]]\n\n [[ 100  101  102 ...  107  "
       "108  109]\n  [ 110  111  112 ...  117  118  119]\n  [ 120  121  122 ...  127  128  129]\n  "
       "...\n  [ 170  171  172 ...  177  178  179]\n  [ 180  181  182 ...  187  188  189]\n  [ 190 "
       " 191  192 ...  197  198  199]]\n\n [[ 200  201  202 ...  207  208  209]\n  [ 210  211  212 "
       "...  217  218  219]\n  [ 220  221  222 ...  227  228  229]\n  ...\n  [ 270  271  272 ...  "
       "277  278  279]\n  [ 280  281  282 ...  287  288  289]\n  [ 290  291  292 ...  297  298  "
       "299]]\n\n ...\n\n [[1700 1701 1702 ... 1707 1708 1709]\n  [1710 1711 1712 ... 1717 1718 "
       "1719]\n  [1720 1721 1722 ... 1727 1728 1729]\n  ...\n  [1770 1771 1772 ... 1777 1778 "
       "1779]\n  [1780 1781 1782 ... 1787 1788 1789]\n  [1790 1791 1792 ... 1797 1798 1799]]\n\n "
       "[[1800 1801 1802 ... 1807 1808 1809]\n  [1810 1811 1812 ... 1817 1818 1819]\n  [1820 1821 "
       "1822 ... 1827 1828 1829]\n  ...\n  [1870 1871 1872 ... 1877 1878 1879]\n  [1880 1881 1882 "
       "... 1887 1888 1889]\n  [1890 1891 1892 ... 1897 1898 1899]]\n\n [[1900 1901 1902 ... 1907 "
       "1908 1909]\n  [1910 1911 1912 ... 1917 1918 1919]\n  [1920 1921 1922 ... 1927 1928 1929]\n "
       " ...\n  [1970 1971 1972 ... 1977 1978 1979]\n  [1980 1981 1982 ... 1987 1988 1989]\n  "
       "[1990 1991 1992 ... 1997 1998 1999]]]"},
      {"int32 summarised only on the long axis", iota<std::int32_t>(Shape{2, 1000}, 1),
       "[[   0    1    2 ...  997  998  999]\n [1000 1001 1002 ... 1997 1998 1999]]"},
      {"int32 summarised wide rows", iota<std::int32_t>(Shape{1001, 2}, 7),
       "[[    0     7]\n [   14    21]\n [   28    35]\n ...\n [13972 13979]\n [13986 13993]\n "
       "[14000 14007]]"},
  });
}

BOOST_AUTO_TEST_CASE(rows_wrap_at_75_columns_and_nested_arrays_break_lines) {
  check_cases({
      {"float32 matrix", Tensor::from_vector<float>({1.5f, -2.25f, 1000.0f, 0.0f}, Shape{2, 2}),
       "[[   1.5    -2.25]\n [1000.      0.  ]]"},
      {"float32 3-d",
       Tensor::from_vector<float>(
           {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.25f, 2.5f, 2.75f},
           Shape{2, 3, 2}),
       "[[[0.   0.25]\n  [0.5  0.75]\n  [1.   1.25]]\n\n [[1.5  1.75]\n  [2.   2.25]\n  [2.5  "
       "2.75]]]"},
      {"float32 matrix with nan",
       Tensor::from_vector<float>({1.0f, kNaNf, 2.5f, 100.0f}, Shape{2, 2}),
       "[[  1.    nan]\n [  2.5 100. ]]"},
      {"float32 wrapped row", iota<float>(Shape{30}, 1.1f),
       "[ 0.         1.1        2.2        3.3000002  4.4        5.5\n  6.6000004  7.7000003  8.8  "
       "      9.900001  11.        12.1\n 13.200001  14.3       15.400001  16.5       17.6       "
       "18.7\n 19.800001  20.9       22.        23.1       24.2       25.300001\n 26.400002  27.5  "
       "     28.6       29.7       30.800001  31.900002 ]"},
      {"float64 wrapped rows", iota<double>(Shape{3, 12}, 0.123),
       "[[0.    0.123 0.246 0.369 0.492 0.615 0.738 0.861 0.984 1.107 1.23  1.353]\n [1.476 1.599 "
       "1.722 1.845 1.968 2.091 2.214 2.337 2.46  2.583 2.706 2.829]\n [2.952 3.075 3.198 3.321 "
       "3.444 3.567 3.69  3.813 3.936 4.059 4.182 4.305]]"},
      {"int32 matrix", Tensor::from_vector<std::int32_t>({1, 2, 3, 4}, Shape{2, 2}),
       "[[1 2]\n [3 4]]"},
      {"int32 3-d", iota<std::int32_t>(Shape{2, 3, 4}, 1),
       "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  "
       "[20 21 22 23]]]"},
      {"int32 4-d", iota<std::int32_t>(Shape{2, 2, 2, 2}, 3),
       "[[[[ 0  3]\n   [ 6  9]]\n\n  [[12 15]\n   [18 21]]]\n\n\n [[[24 27]\n   [30 33]]\n\n  [[36 "
       "39]\n   [42 45]]]]"},
      {"int32 wrapped row", iota<std::int32_t>(Shape{40}, 1),
       "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 "
       "29 30 31 32 33 34 35 36 37 38 39]"},
      {"bool matrix", Tensor::from_vector<bool>({true, false, false, true}, Shape{2, 2}),
       "[[ True False]\n [False  True]]"},
  });
}

BOOST_AUTO_TEST_CASE(strings_print_as_python_bytes_reprs) {
  check_cases({
      {"scalar", Tensor("abc"), "b'abc'"},
      {"single quote", Tensor("it's"), "b\"it's\""},
      {"double quotes", Tensor("say \"hi\""), "b'say \"hi\"'"},
      {"both quotes", Tensor("both ' and \""), "b'both \\' and \"'"},
      {"escapes", Tensor(std::string("tab\tnl\ncr\r\\ \0\xff", 14)),
       "b'tab\\tnl\\ncr\\r\\\\ \\x00\\xff'"},
      {"empty", Tensor(""), "b''"},
      {"vector", Tensor::from_vector<std::string>({"a", "bc"}), "[b'a' b'bc']"},
      {"matrix", Tensor::from_vector<std::string>({"a", "bc", "", "x'y"}, Shape{2, 2}),
       "[[b'a' b'bc']\n [b'' b\"x'y\"]]"},
      {"wrapped",
       [] {
         std::vector<std::string> words;
         for (int i = 0; i < 20; ++i) words.push_back("word" + std::to_string(i));
         return Tensor::from_vector(words);
       }(),
       "[b'word0' b'word1' b'word2' b'word3' b'word4' b'word5' b'word6' b'word7'\n b'word8' "
       "b'word9' b'word10' b'word11' b'word12' b'word13' b'word14'\n b'word15' b'word16' "
       "b'word17' b'word18' b'word19']"},
  });
}

BOOST_AUTO_TEST_CASE(bfloat16_prints_its_float_value_unaligned) {
  check_cases({
      {"vector", bfloat16_vector({0.1f, 1.5f, 3.0f, -2.0f, 1e10f, 1e-6f}),
       "[0.100098 1.5 3 -2 9.99922e+09 9.98378e-07]"},
      {"scalar 0.1", Tensor(bfloat16_t(0.1f)), "0.100098"},
      {"scalar 1", Tensor(bfloat16_t(1.0f)), "1"},
      {"scalar 3e38", Tensor(bfloat16_t(3e38f)), "3.00406e+38"},
  });
}

BOOST_AUTO_TEST_CASE(empty_uninitialized_and_resource_tensors_have_placeholders) {
  BOOST_CHECK_EQUAL(Tensor(DType::float32, Shape{0}).to_string(), "[]");
  BOOST_CHECK_EQUAL(Tensor(DType::int32, Shape{2, 0}).to_string(), "[]");
  BOOST_CHECK_EQUAL(Tensor().to_string(), "<uninitialized>");
  BOOST_CHECK_EQUAL(Tensor::from_resource(nullptr).to_string(), "<resource>");
}

BOOST_AUTO_TEST_CASE(views_print_their_own_elements) {
  Tensor m = Tensor::from_vector<std::int32_t>({1, 2, 30, 4}, Shape{2, 2});
  BOOST_CHECK_EQUAL(m.slice(1).to_string(), "[30  4]");
  std::ostringstream os;
  os << m;
  BOOST_CHECK_EQUAL(os.str(), "[[ 1  2]\n [30  4]]");
}

// The dtypes' Python names, TensorFlow's DataTypeString spellings (both parse), sizes and kinds.
BOOST_AUTO_TEST_CASE(dtype_names_sizes_and_kinds) {
  struct Row {
    af::DType t;
    const char* name;
    const char* tf_name;
    std::size_t size;
  };
  for (const Row& r :
       {Row{af::DType::float16, "float16", "half", 2}, Row{af::DType::int8, "int8", "int8", 1},
        Row{af::DType::int16, "int16", "int16", 2}, Row{af::DType::uint16, "uint16", "uint16", 2},
        Row{af::DType::uint32, "uint32", "uint32", 4},
        Row{af::DType::uint64, "uint64", "uint64", 8},
        Row{af::DType::complex64, "complex64", "complex64", 8},
        Row{af::DType::complex128, "complex128", "complex128", 16},
        Row{af::DType::float32, "float32", "float", 4}}) {
    BOOST_TEST(af::dtype_name(r.t) == r.name);
    BOOST_TEST(af::data_type_string(r.t) == r.tf_name);
    BOOST_TEST(af::dtype_size(r.t) == r.size);
    BOOST_TEST((af::dtype_from_string(r.name) == r.t));
    BOOST_TEST((af::dtype_from_string(r.tf_name) == r.t));
  }
  BOOST_TEST(af::is_floating(af::DType::float16));
  BOOST_TEST(af::is_integer(af::DType::uint64));
  BOOST_TEST(!af::is_integer(af::DType::boolean));
  BOOST_TEST(af::is_complex(af::DType::complex128));
  BOOST_TEST(!af::is_floating(af::DType::complex64));
  BOOST_TEST((af::dtype_from_string("qint8") == af::DType::invalid));
}

BOOST_AUTO_TEST_SUITE_END()
