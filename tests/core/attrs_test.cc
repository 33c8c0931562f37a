#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "cvmcheck/attrs.h"
#include "cvmcheck/errors.h"

namespace cvm {
namespace {

TEST(IntAttr, AcceptsDecimalsWithinInt32) {
  EXPECT_EQ(parse_int_attr("0"), 0);
  EXPECT_EQ(parse_int_attr("-17"), -17);
  EXPECT_EQ(parse_int_attr("+5"), 5);
  EXPECT_EQ(parse_int_attr(" 12 "), 12);
  EXPECT_EQ(parse_int_attr("2147483647"), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(parse_int_attr("-2147483648"), std::numeric_limits<int32_t>::min());
}

TEST(IntAttr, RejectsMalformedAndOutOfRange) {
  for (const char* text : {"", " ", "-", "+", "1.0", "0x10", "1e3", "12a", "a12", "1 2", "--1",
                           "2147483648", "-2147483649", "99999999999999999999999", "None",
                           "(1,)", "true"}) {
    EXPECT_THROW(parse_int_attr(text), LogicError) << "'" << text << "'";
  }
}

TEST(BoolAttr, AcceptsTheSixSpellings) {
  for (const char* t : {"true", "True", "1"}) EXPECT_TRUE(parse_bool_attr(t));
  for (const char* f : {"false", "False", "0"}) EXPECT_FALSE(parse_bool_attr(f));
  for (const char* bad : {"", "TRUE", "yes", "2", "-1", "tru", "truee"}) {
    EXPECT_THROW(parse_bool_attr(bad), LogicError) << bad;
  }
}

TEST(TupleAttr, AcceptsEverySyntaxOfTheContract) {
  EXPECT_EQ(parse_tuple_attr("(1, 2)"), (Tuple{1, 2}));
  EXPECT_EQ(parse_tuple_attr("[1,2]"), (Tuple{1, 2}));
  EXPECT_EQ(parse_tuple_attr("(1,)"), (Tuple{1}));
  EXPECT_EQ(parse_tuple_attr("()"), Tuple{});
  EXPECT_EQ(parse_tuple_attr("[]"), Tuple{});
  EXPECT_EQ(parse_tuple_attr("( )"), Tuple{});
  EXPECT_EQ(parse_tuple_attr("3"), (Tuple{3}));
  EXPECT_EQ(parse_tuple_attr("-3"), (Tuple{-3}));
  EXPECT_EQ(parse_tuple_attr(" ( -1 , 2 , ) "), (Tuple{-1, 2}));
  EXPECT_EQ(parse_tuple_attr("(9223372036854775807, -9223372036854775808)"),
            (Tuple{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}));
}

TEST(TupleAttr, RejectsMalformed) {
  for (const char* text : {"", "(", ")", "(1", "1)", "(1]", "[1)", "(,)", "(1,,2)", "(,1)",
                           "(1,2,,)", "(a)", "(1.5)", "((1))", "(1 2)", "1,2",
                           "(9223372036854775808)", "(-9223372036854775809)", "None"}) {
    EXPECT_THROW(parse_tuple_attr(text), LogicError) << "'" << text << "'";
  }
}

TEST(OptIntAttr, AcceptsNoneOrInt) {
  EXPECT_EQ(parse_opt_int_attr("None"), std::nullopt);
  EXPECT_EQ(parse_opt_int_attr("-2"), std::optional<int64_t>(-2));
  EXPECT_THROW(parse_opt_int_attr("none"), LogicError);
  EXPECT_THROW(parse_opt_int_attr(""), LogicError);
}

const std::vector<AttrSpec> kSchema = {
    {"axis", AttrKind::kTuple, "()", {}},
    {"units", AttrKind::kInt, std::nullopt, {}},
    {"layout", AttrKind::kString, "NCHW", {"NCHW"}},
};

TEST(ParseAttrs, AppliesDefaultsAndRecordsWhatWasGiven) {
  const Attrs attrs = parse_attrs(kSchema, nlohmann::json{{"units", "4"}});
  EXPECT_EQ(attrs.i("units"), 4);
  EXPECT_TRUE(attrs.tuple("axis").empty());
  EXPECT_EQ(attrs.str("layout"), "NCHW");
  EXPECT_TRUE(attrs.given("units"));
  EXPECT_FALSE(attrs.given("axis"));
}

TEST(ParseAttrs, RejectsUnknownMissingMalformedAndNonStrings) {
  using nlohmann::json;
  EXPECT_THROW(parse_attrs(kSchema, json::object()), LogicError);  // units is required
  EXPECT_THROW(parse_attrs(kSchema, json{{"units", "4"}, {"unit", "4"}}), LogicError);
  EXPECT_THROW(parse_attrs(kSchema, json{{"units", "4.0"}}), LogicError);
  EXPECT_THROW(parse_attrs(kSchema, json{{"units", 4}}), LogicError);
  EXPECT_THROW(parse_attrs(kSchema, json{{"units", "4"}, {"layout", "NHWC"}}), LogicError);
  EXPECT_THROW(parse_attrs(kSchema, json::array()), LogicError);
  EXPECT_THROW(parse_attrs(kSchema, json("units")), LogicError);
}

TEST(ParseAttrs, ReadingWithTheWrongKindIsOurBug) {
  const Attrs attrs = parse_attrs(kSchema, nlohmann::json{{"units", "4"}});
  EXPECT_THROW(attrs.b("units"), RuntimeError);
  EXPECT_THROW(attrs.i("nonexistent"), RuntimeError);
}

}  // namespace
}  // namespace cvm
