// Everything spscan offers.
#pragma once

#include <spscan/copy.h>
#include <spscan/execution_policy.h>
#include <spscan/partition.h>
#include <spscan/reduce.h>
#include <spscan/remove.h>
#include <spscan/scan.h>
#include <spscan/temporary_storage.h>
#include <spscan/transform_scan.h>
#include <spscan/unique.h>
#include <spscan/version.h>
