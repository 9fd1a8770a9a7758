// Invariants of the policy's field tables: docs/policy.md documents every
// property, and every property's key is unique within its object.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/json/json_reader.h"
#include "config/policy/policy.h"

namespace vigil::config {
namespace {

// The dotted paths of every non-object property in `v`, as DumpPolicy writes them (it
// writes all of them): "name", "files.default", "files.rules", ...
void CollectPaths(json::Value v, const std::string& prefix, std::vector<std::string>& out) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string path =
        prefix.empty() ? std::string(v.MemberKey(i)) : prefix + "." + std::string(v.MemberKey(i));
    if (v.MemberValue(i).kind() == json::Kind::kObject) {
      CollectPaths(v.MemberValue(i), path, out);
    } else {
      out.push_back(path);
    }
  }
}

std::vector<std::string> PropertyPaths() {
  Result<json::Document> doc = json::Document::Parse(DumpPolicy(Policy{}));
  EXPECT_TRUE(doc) << doc.error().message;
  std::vector<std::string> paths;
  if (doc) CollectPaths(doc->root(), "", paths);
  return paths;
}

TEST(PolicyFieldsTest, EveryPropertyIsUnique) {
  std::vector<std::string> paths = PropertyPaths();
  EXPECT_EQ(paths.size(), 19u);  // update docs/policy.md when this changes
  EXPECT_EQ(std::set<std::string>(paths.begin(), paths.end()).size(), paths.size());
}

TEST(PolicyFieldsTest, DocsListEveryProperty) {
  Result<std::string> docs = ReadFile(VIGIL_TEST_DATA "/../../docs/policy.md", 1 << 20);
  ASSERT_TRUE(docs) << docs.error().message;
  for (const std::string& path : PropertyPaths()) {
    // A row of the property table: | `files.default` | ...
    EXPECT_THAT(*docs, ::testing::HasSubstr("| `" + path + "` |")) << path;
  }
}

}  // namespace
}  // namespace vigil::config
