#include "service/template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace vigil::service {
namespace {

using ::testing::HasSubstr;

TEST(TemplatesTest, TheBuiltInIsThereWhateverTheFileSays) {
  Result<std::vector<Template>> templates = ParseTemplates(R"({})");
  ASSERT_TRUE(templates) << templates.error().message;
  ASSERT_EQ(templates->size(), 1u);
  EXPECT_EQ((*templates)[0].name, kHostTemplate);
  EXPECT_EQ((*templates)[0].bundle, "");
  EXPECT_EQ((*templates)[0].policy, "agent");
}

TEST(TemplatesTest, ReadsEverySetting) {
  Result<std::vector<Template>> templates = ParseTemplates(R"({"templates": {
    "python": {"pool": 0},
    "data": {"bundle": "/srv/images/data", "python": "/usr/local/bin/python3.12",
             "policy": "default", "pool": 4, "lifetime": "10m", "maxLifetime": "2h",
             "idlePause": "5s", "memory": "512M", "egress": ["pypi.org:443", "10.0.0.1:80"]}}})");
  ASSERT_TRUE(templates) << templates.error().message;
  ASSERT_EQ(templates->size(), 2u);
  EXPECT_EQ((*templates)[0].pool, 0u);
  const Template& data = (*templates)[1];
  EXPECT_EQ(data.name, "data");
  EXPECT_EQ(data.bundle, "/srv/images/data");
  EXPECT_EQ(data.python, "/usr/local/bin/python3.12");
  EXPECT_EQ(data.policy, "default");
  EXPECT_EQ(data.pool, 4u);
  EXPECT_EQ(data.lifetime, std::chrono::minutes(10));
  EXPECT_EQ(data.max_lifetime, std::chrono::hours(2));
  EXPECT_EQ(data.idle_pause, std::chrono::seconds(5));
  EXPECT_EQ(data.memory_limit, 512 << 20);
  EXPECT_THAT(data.egress, ::testing::ElementsAre("pypi.org:443", "10.0.0.1:80"));
}

TEST(TemplatesTest, ErrorsNameTheJsonPath) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {R"({"templates": []})", "templates: expected object, got array"},
      {R"({"templates": {"a": {"pool": -1}}})", "templates.a.pool: expected an integer from 0"},
      {R"({"templates": {"a": {"pool": 65}}})", "templates.a.pool"},
      {R"({"templates": {"a": {"lifetime": "soon"}}})", "templates.a.lifetime"},
      {R"({"templates": {"a": {"lifetime": "500ms"}}})",
       "templates.a.lifetime: \"500ms\" is under 1s"},
      {R"({"templates": {"a": {"lifetime": "2h"}}})",
       "templates.a.lifetime: longer than its maxLifetime"},
      {R"({"templates": {"a": {"memory": "lots"}}})", "templates.a.memory"},
      {R"({"templates": {"a": {"bundle": 1}}})",
       "templates.a.bundle: expected string, got number 1"},
      {R"({"templates": {"a": {"colour": "red"}}})",
       "templates.a.colour: unknown template setting"},
      {R"({"templates": {"A/b": {}}})", "templates.A/b: a template's name is"},
      {R"({"templates": {"": {}}})", "templates.: a template's name is"},
      {R"([1])", "expected an object, got array"},
  };
  for (const Case& c : cases) {
    Result<std::vector<Template>> templates = ParseTemplates(c.text);
    ASSERT_FALSE(templates) << c.text;
    EXPECT_THAT(templates.error().message, HasSubstr(c.error)) << c.text;
  }
}

// The example deploy/ shows parses, and says what docs/serve.md says.
TEST(TemplatesTest, TheDeployExampleParses) {
  std::ifstream file(std::string(VIGIL_TEST_DATA) + "/../../deploy/serve/templates.json");
  std::stringstream text;
  text << file.rdbuf();
  Result<std::vector<Template>> templates = ParseTemplates(text.str());
  ASSERT_TRUE(templates) << templates.error().message;
  ASSERT_EQ(templates->size(), 2u);
  EXPECT_EQ((*templates)[0].pool, 2u);
  EXPECT_EQ((*templates)[1].name, "code-interpreter");
  EXPECT_EQ((*templates)[1].memory_limit, std::int64_t{1} << 30);
}

}  // namespace
}  // namespace vigil::service
