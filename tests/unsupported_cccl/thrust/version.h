// Stands in for the version header of a CCCL older than spscan supports (CCCL 2.7), first on the
// include path of the unsupported_cccl test: spscan must stop at once with its own message.
#pragma once

#define THRUST_VERSION 200700
#define THRUST_MAJOR_VERSION (THRUST_VERSION / 100000)
#define THRUST_MINOR_VERSION (THRUST_VERSION / 100 % 1000)
#define THRUST_SUBMINOR_VERSION (THRUST_VERSION % 100)
