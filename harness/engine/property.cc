#include "harness/engine/property.h"

#include <cstdlib>
#include <sstream>

namespace cvm {

PropertyVerdict check_property(const std::string& name, const std::function<void()>& body,
                               const PropertyParams& params) {
  using namespace rc::detail;
  TestParams test = configuration().testParams;
  test.maxSuccess = params.cases;
  test.maxSize = params.max_size;
  test.disableShrinking = !params.shrink;
  if (params.seed != 0) test.seed = params.seed;
  TestMetadata metadata;
  metadata.id = name;
  metadata.description = name;
  const TestResult result = checkTestable(body, metadata, test);
  PropertyVerdict verdict;
  std::ostringstream message;
  if (result.is<SuccessResult>()) {
    const auto& success = result.get<SuccessResult>();
    verdict.passed = true;
    verdict.successes = success.numSuccess;
    printResultMessage(success, message);
  } else if (result.is<FailureResult>()) {
    const auto& failure = result.get<FailureResult>();
    verdict.successes = failure.numSuccess;
    printResultMessage(failure, message);
  } else if (result.is<GaveUpResult>()) {
    const auto& gave_up = result.get<GaveUpResult>();
    verdict.gave_up = true;
    verdict.successes = gave_up.numSuccess;
    printResultMessage(gave_up, message);
  } else {
    message << "RapidCheck error: " << result.get<Error>().description;
  }
  verdict.message = message.str();
  return verdict;
}

int property_cases(int fallback) {
  const char* text = std::getenv("CVMCHECK_PROP_CASES");
  if (text == nullptr) return fallback;
  const int value = std::atoi(text);
  return value > 0 ? value : fallback;
}

}  // namespace cvm
