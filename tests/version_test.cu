// <spscan/version.h>, reached through <spscan/spscan.h>: its encoded version agrees with its parts
// and with the version CMake's package config carries (read from the same header). No GPU needed.
#include <spscan/spscan.h>

#include <string>

#include <gtest/gtest.h>

TEST(Version, encoded_version_agrees_with_its_parts)
{
  EXPECT_EQ(SPSCAN_VERSION_MAJOR * 100000 + SPSCAN_VERSION_MINOR * 100 + SPSCAN_VERSION_PATCH, SPSCAN_VERSION);
  EXPECT_LT(SPSCAN_VERSION_MINOR, 1000);
  EXPECT_LT(SPSCAN_VERSION_PATCH, 100);
}

TEST(Version, header_and_cmake_package_name_the_same_version)
{
  const std::string from_header = std::to_string(SPSCAN_VERSION_MAJOR) + "." + std::to_string(SPSCAN_VERSION_MINOR) + "."
                                + std::to_string(SPSCAN_VERSION_PATCH);
  EXPECT_EQ(std::string(SPSCAN_CMAKE_PROJECT_VERSION), from_header);
}
