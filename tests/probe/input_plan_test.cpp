// Shapes a model leaves open are all reported at once, with flags a user can paste.
#include "probe/input_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace parity::probe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

model::Dim fixed(int64_t v) { return {v, ""}; }
model::Dim symbol(std::string s) { return {-1, std::move(s)}; }
model::Dim unnamed() { return {}; }

model::ValueInfo input(std::string name, std::vector<model::Dim> dims, bool has_shape = true) {
  return {std::move(name), DType::float32, has_shape, std::move(dims)};
}

// PP-OCR's classifier shape: three symbolic dims on one input, one shared with a second input.
model::ModelInfo three_symbol_model() {
  model::ModelInfo m;
  m.inputs.push_back(input("x", {symbol("batch"), fixed(3), symbol("h"), symbol("w")}));
  m.inputs.push_back(input("mask", {symbol("batch"), symbol("h")}));
  return m;
}

TEST(MissingShapes, ListsEverySymbolicDimOnceWithPasteableFlags) {
  const MissingShapes missing = find_missing_shapes(three_symbol_model(), {});
  EXPECT_EQ(missing.problems.size(), 5u);  // x: batch, h, w; mask: batch, h
  EXPECT_THAT(missing.suggested_flags, ElementsAre("--dim batch=1", "--dim h=32", "--dim w=32"));
  EXPECT_THAT(missing.hint(), HasSubstr("--dim batch=1 --dim h=32 --dim w=32"));
}

TEST(MissingShapes, SetDimsAndFileInputsNeedNothing) {
  InputSettings s;
  s.dims = {{"batch", 2}, {"h", 8}};
  s.files["mask"] = "mask.npy";
  const MissingShapes missing = find_missing_shapes(three_symbol_model(), s);
  EXPECT_THAT(missing.problems, ElementsAre("input 'x' dim 3 is symbolic 'w'"));
  EXPECT_THAT(missing.suggested_flags, ElementsAre("--dim w=32"));
  s.dims["w"] = 8;
  EXPECT_TRUE(find_missing_shapes(three_symbol_model(), s).empty());
}

TEST(MissingShapes, UnnamedDimsGetAWholeShapeWithSetDimsKept) {
  model::ModelInfo m;
  m.inputs.push_back(input("x", {unnamed(), fixed(3), unnamed()}));
  m.inputs.push_back(input("y", {}, /*has_shape=*/false));
  const MissingShapes missing = find_missing_shapes(m, {});
  EXPECT_EQ(missing.problems.size(), 3u);
  EXPECT_THAT(missing.suggested_flags, ElementsAre("--shape x=1,3,32"));
  EXPECT_THAT(missing.problems.back(), HasSubstr("'y' has no declared shape"));
  EXPECT_THAT(missing.hint(), HasSubstr("--shape NAME=D0,D1,..."));
}

// Silero VAD v5 as exported (livekit's and vad-web's files): input [?, ?], state [2, ?, 128], both
// with the same batch axis, and sr compared with 16000. The batch axis is 1 in both inputs, the
// signal long enough for the STFT's reflect pad, and sr the rate the model's main branch wants.
TEST(MissingShapes, SharedBatchAxisAgreesAndAComparedIntegerGetsItsConstant) {
  model::ModelInfo m;
  m.inputs.push_back(input("input", {unnamed(), unnamed()}));
  m.inputs.push_back(input("state", {fixed(2), unnamed(), fixed(128)}));
  m.inputs.push_back({"sr", DType::int64, true, {}});
  m.compared_with["sr"] = 16000;
  const MissingShapes missing = find_missing_shapes(m, {});
  EXPECT_THAT(missing.suggested_flags, ElementsAre("--shape input=1,512", "--shape state=2,1,128"));
  EXPECT_THAT(missing.value_flags, ElementsAre("--range sr=16000,16001"));
  EXPECT_THAT(missing.value_notes, ElementsAre(HasSubstr("'sr' is compared with 16000")));
  EXPECT_THAT(missing.hint(), HasSubstr("--range sr=16000,16001"));
  // The v4 export names the axis: 'batch' leads `input` and sits inside h and c.
  model::ModelInfo v4;
  v4.inputs.push_back(input("input", {symbol("batch"), symbol("sequence")}));
  v4.inputs.push_back(input("h", {fixed(2), symbol("batch"), fixed(64)}));
  EXPECT_THAT(find_missing_shapes(v4, {}).suggested_flags,
              ElementsAre("--dim batch=1", "--dim sequence=512"));
  // A range the user gave is not suggested again.
  InputSettings s;
  s.ranges["sr"] = {8000, 8001};
  EXPECT_TRUE(find_missing_shapes(m, s).value_flags.empty());
}

TEST(MissingShapes, PlanInputsRefusesWithAllOfThemInOneError) {
  const auto plan = plan_inputs(three_symbol_model(), {});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().kind, ErrorKind::bad_input);
  EXPECT_THAT(plan.error().message, HasSubstr("'x' dim 0 is symbolic 'batch'"));
  EXPECT_THAT(plan.error().message, HasSubstr("'mask' dim 1 is symbolic 'h'"));
  EXPECT_THAT(plan.error().hint, HasSubstr("--dim batch=1 --dim h=32 --dim w=32"));
}

TEST(MissingShapes, TheSuggestedFlagsReallyPlan) {
  InputSettings s;
  s.dims = {{"batch", 1}, {"h", 32}, {"w", 32}};
  const auto plan = plan_inputs(three_symbol_model(), s);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  EXPECT_EQ(plan->inputs[0].shape, (Shape{1, 3, 32, 32}));
  EXPECT_EQ(plan->inputs[1].shape, (Shape{1, 32}));
}

}  // namespace
}  // namespace parity::probe
