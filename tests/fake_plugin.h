/* fake_plugin.h -- what the fake CUDA plugins and tests/plugin_loader.c agree on. */
#ifndef WR_FAKE_PLUGIN_H
#define WR_FAKE_PLUGIN_H

#define FAKE_TAG 1000000            /* added to every int32 SUM result of the good fake */
#define FAKE_FAIL_COUNT 13          /* a reduce of this many elements fails with WR_ERR_DEVICE */
#define FAKE_DESCRIPTION "fake plugin for tests"

#endif
