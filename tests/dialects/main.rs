//! The dialects against their specifications, their fixtures and the shared corpus: each one's
//! reader, fold, stored views and text, one module a file.

#[path = "../support/mod.rs"]
mod support;

mod agentskit_cursor;
mod agentskit_demo;
mod agentskit_golden;
mod agentskit_lineage;
mod agentskit_properties;
mod agentskit_sessions;
mod agui_checkpoints;
mod agui_corpus;
mod agui_demo;
mod agui_json_patch_suite;
mod agui_lint;
mod agui_refresh;
mod agui_rules;
mod agui_stored_views;
mod claude_code;
mod demo_iterate;
mod dialect_appends;
mod iterate_agent_loop;
mod iterate_agent_loop_diff;
mod iterate_checkpoints;
mod iterate_golden;
mod iterate_props;
mod iterate_rules;
mod iterate_sections;
mod iterate_seek;
mod tokens;
