// A host program built against the installed actorflow package: c = a * b with a pinned
// variable, as in the chapter; exits 0 when the session computes 12.
#include <actorflow/actorflow.hpp>
#include <iostream>

int main() {
  af::Graph g;
  af::Variable a;
  af::Output b;
  {
    auto on_cpu = g.device("/cpu:0");
    a = g.variable(3.0f, {.name = "a"});
    b = g.constant(4.0f, "b");
  }
  af::Output c = a * b;
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  float v = sess.run(c).scalar<float>();
  std::cout << "c = " << v << "\n";
  return v == 12.0f ? 0 : 1;
}
