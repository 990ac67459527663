// Everything spscan offers.
#pragma once

#include <spscan/scan.h>
#include <spscan/transform_scan.h>
