#pragma once

#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Tensor contractions written as Einstein sums (TensorFlow's `tf.einsum`,
/// special_math_ops.py, and its op Einsum, kernels/linalg/einsum_op_impl.h).
namespace af {

/// `tf.einsum(equation, *inputs)`: op Einsum (named "<name>/Einsum", `name` defaulting to
/// "einsum"), for one or two `inputs` of one dtype (float32, float64, int32, int64 or
/// bfloat16 run). The equation names each input's axes by one letter (a-z, A-Z) and may hold
/// one "..." per subscript for any number of leading, trailing or middle axes, which
/// broadcast between the inputs as NumPy's. A label repeated in an input takes that input's
/// diagonal ("ii->i"), one missing from the output is summed over ("ij->", "ij,jk->ik"), and
/// one repeated in the output places the values on a diagonal ("i->ii"). Without "->" the
/// output is the labels that appear once, sorted (an ellipsis of one input first), as
/// TensorFlow's implicit mode. Spaces are dropped. Three or more inputs become a chain of
/// two-input Einsum ops ("einsum/Einsum", "einsum/Einsum_1", ...) from the left, each
/// intermediate keeping the labels still needed (TensorFlow orders the chain by opt_einsum;
/// the values are the same up to rounding).
///
/// Throws InvalidArgumentError as Python's ValueError: "Subscripts have incorrect format:
/// ij->i->j", "Got 1 inputs for equation \"ij,jk->ik\", expecting 2", "Output subscripts
/// contain a label appearing more than once: ij->ii", "Output subscripts contain the label k
/// not present in the input subscripts.", and for shapes the op's shape function rejects
/// ("Dimensions must be equal, but are 3 and 2", "Shape must be rank 3 but is rank 2\n\t for
/// 0th input and equation: ijk->i"). Shapes known only when the step runs fail it with the
/// kernel's messages ("Expected dimension 3 at axis 0 of the input shaped [2,4] but got
/// dimension 2", "Expected input 0 to have rank 3 but got: 2", "Invalid broadcasting
/// dimensions: [2,2,3] vs. [3,3,4]"). Differentiable in every float input (TensorFlow's
/// _EinsumGrad: Einsum ops of derived equations, summed back over broadcast axes).
///
/// Example, a batched matrix product broadcasting the batch:
///
///     af::einsum("...ij,...jk->...ik", {a, b});  // a [2, 1, 2, 3], b [5, 3, 4] -> [2, 5, 2, 4]
Output einsum(std::string_view equation, const std::vector<Output>& inputs,
              std::string_view name = {});

}  // namespace af
