// Everything spscan offers.
#pragma once

#include <spscan/execution_policy.h>
#include <spscan/scan.h>
#include <spscan/temporary_storage.h>
#include <spscan/transform_scan.h>
