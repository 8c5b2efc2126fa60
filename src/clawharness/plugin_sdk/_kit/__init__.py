"""The contract kit's code (published as `clawharness.plugin_sdk.testing`): prepared
attempts (`attempt_builder`), registration as the host does it (`plugin_rig`) and the
contract checks (`contract`)."""
