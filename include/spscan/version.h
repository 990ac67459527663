// spscan's version: SPSCAN_VERSION is MAJOR * 100000 + MINOR * 100 + PATCH (CUB's and Thrust's
// encoding), for `#if SPSCAN_VERSION >= ...`; CMake reads the version from here (CMakeLists.txt),
// and CHANGELOG.md says what each version changed.
#pragma once

#define SPSCAN_VERSION_MAJOR 0
#define SPSCAN_VERSION_MINOR 1
#define SPSCAN_VERSION_PATCH 0

#define SPSCAN_VERSION (SPSCAN_VERSION_MAJOR * 100000 + SPSCAN_VERSION_MINOR * 100 + SPSCAN_VERSION_PATCH)
