// The ablation bench's CSV (bench/ablation/csv.h) is what its plot script (bench/plot_ablation.py)
// reads: variant names with commas and quotes survive as one field each, the script counts every
// measurement and variant, rejects the unquoted rows the bench once wrote, and draws the plot
// (where matplotlib is installed; scripts/install-deps.sh installs it). No GPU needed.
#include <ablation/csv.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace
{

const std::string plot_script = std::string(SPSCAN_BENCH_DIR) + "/plot_ablation.py";

std::string scratch_path(const std::string& name)
{
  return ::testing::TempDir() + "spscan_ablation_csv_test_" + name;
}

struct command_result
{
  int status;
  std::string output;
};

command_result run(const std::string& command)
{
  command_result result{-1, ""};
  std::FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr)
  {
    return result;
  }
  char buffer[256];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr)
  {
    result.output += buffer;
  }
  result.status = pclose(pipe);
  return result;
}

// A CSV as the bench writes it: three variants (names as the bench's, one with a quote), two
// sizes each.
std::string write_fixture()
{
  const std::string path = scratch_path("fixture.csv");
  std::FILE* csv         = std::fopen(path.c_str(), "w");
  EXPECT_NE(csv, nullptr);
  ablation::write_csv_header(csv);
  const std::vector<std::pair<std::string, std::string>> variants{
    {"block", "Kogge-Stone, 1 per thread"},
    {"device", "chained, dynamic tile ids"},
    {"device", "spscan (look-back warp, \"64\" per read)"}};
  for (const auto& [level, name] : variants)
  {
    for (const int log2n : {16, 18})
    {
      ablation::write_csv_row(csv, {level, name, "int32", log2n, 0.0125 * log2n, 0.01 * log2n, true});
    }
  }
  std::fclose(csv);
  return path;
}

TEST(AblationCsv, fields_with_commas_and_quotes_are_quoted_and_quotes_doubled)
{
  EXPECT_EQ("\"Kogge-Stone, 1 per thread\"", ablation::csv_field("Kogge-Stone, 1 per thread"));
  EXPECT_EQ("\"a \"\"b\"\" c\"", ablation::csv_field("a \"b\" c"));
}

TEST(AblationCsv, the_plot_script_reads_every_measurement_and_variant_the_bench_writes)
{
  const std::string csv     = write_fixture();
  const command_result read = run("python3 " + plot_script + " --check " + csv);
  EXPECT_EQ(0, read.status) << read.output;
  EXPECT_NE(std::string::npos, read.output.find("6 measurements of 3 variants")) << read.output;
}

TEST(AblationCsv, the_plot_script_rejects_variant_names_written_unquoted)
{
  const std::string path = scratch_path("unquoted.csv");
  {
    std::ofstream csv(path);
    csv << "level,variant,type,log2n,ms,copy_ms,ratio,exact\n";
    csv << "block,Kogge-Stone, 1 per thread,int32,16,0.2,0.16,0.8,1\n";
  }
  const command_result read = run("python3 " + plot_script + " --check " + path);
  EXPECT_NE(0, read.status) << "an unquoted comma splits the variant's name into two fields: " << read.output;
}

TEST(AblationCsv, the_plot_script_draws_the_bench_csv)
{
  if (run("python3 -c 'import matplotlib'").status != 0)
  {
    GTEST_SKIP() << "matplotlib is not installed (scripts/install-deps.sh installs it)";
  }
  const std::string png = scratch_path("plot.png");
  std::remove(png.c_str());
  const command_result plot = run("python3 " + plot_script + " " + write_fixture() + " " + png);
  ASSERT_EQ(0, plot.status) << plot.output;
  std::ifstream image(png, std::ios::binary);
  char signature[8] = {};
  image.read(signature, sizeof(signature));
  EXPECT_EQ(std::string("\x89PNG\r\n\x1a\n", 8), std::string(signature, 8)) << "the script's output is not a PNG";
}

} // namespace
