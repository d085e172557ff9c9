/* The harness's own rule: a program that ran no check fails (test_finish). ctest registers this
 * program with WILL_FAIL, so the rule breaking shows as a failed test. */
#include "test.h"

int main(void) {
  test_init("test_no_checks");
  return test_finish();
}
