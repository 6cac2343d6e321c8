// The one Boost.Test main of each test executable.
#define BOOST_TEST_MODULE actorflow
#include <boost/test/unit_test.hpp>
