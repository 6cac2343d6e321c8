// Shape's dims (DimVector): up to six dims in place, more on the heap, with the value
// semantics of the std::vector it replaced.
#include "actorflow/ops/shape.hpp"

#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <utility>
#include <vector>

#include "actorflow/ops/tensor.hpp"

BOOST_AUTO_TEST_SUITE(shape_test)

BOOST_AUTO_TEST_CASE(dims_keep_their_values_inline_and_on_the_heap) {
  for (std::size_t rank : {0u, 1u, 6u, 7u, 20u}) {
    std::vector<std::int64_t> dims;
    for (std::size_t i = 0; i < rank; ++i) dims.push_back(static_cast<std::int64_t>(i + 2));
    af::Shape s(dims);
    BOOST_TEST(s.rank() == static_cast<int>(rank));
    BOOST_TEST((std::vector<std::int64_t>(s.dims()) == dims));
    BOOST_TEST((s.dims() == dims));
    // Copies and moves are independent values.
    af::Shape copy = s;
    if (rank > 0) copy.mutable_dims()[0] = 99;
    BOOST_TEST((s.dims() == dims));
    af::Shape moved = std::move(copy);
    if (rank > 0) BOOST_TEST(moved.dim(0) == 99);
    copy = s;  // reusable after a move
    BOOST_TEST((copy == s));
    s = moved;
    BOOST_TEST((s == moved));
  }
}

BOOST_AUTO_TEST_CASE(dims_grow_shrink_and_check_bounds) {
  af::DimVector d{1, 2, 3};
  for (int i = 0; i < 10; ++i) d.push_back(10 + i);  // past the inline capacity
  BOOST_TEST(d.size() == 13u);
  BOOST_TEST(d[3] == 10);
  BOOST_TEST(d.back() == 19);
  d.erase_front();
  BOOST_TEST(d.front() == 2);
  BOOST_TEST(d.size() == 12u);
  BOOST_CHECK_THROW(d.at(12), std::out_of_range);
  BOOST_CHECK_THROW(af::Shape({2, 3}).dim(2), std::out_of_range);
  BOOST_TEST((af::Shape({2, 3}) != af::Shape({2, 3, 1})));
  BOOST_TEST(af::Shape({4, 0, 5}).num_elements() == 0);
  BOOST_TEST(af::Shape({2, 3}).to_string() == "[2,3]");
  // slice drops the first dim, slice_rows keeps it.
  af::Tensor t(af::float32, af::Shape{2, 3});
  for (int i = 0; i < 6; ++i) t.data<float>()[i] = static_cast<float>(i);
  BOOST_TEST((t.slice(1).shape() == af::Shape{3}));
  BOOST_TEST(t.slice(1).data<float>()[0] == 3.0f);
  BOOST_TEST((t.slice_rows(0, 1).shape() == af::Shape{1, 3}));
}

BOOST_AUTO_TEST_SUITE_END()
