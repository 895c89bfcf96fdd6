//! The tests of `view`.

use super::*;

#[test]
fn given_an_old_kept_view_when_fitted_then_it_counts_all_and_keeps_the_latest() {
    // Protects tips stored before views carried counts: they list every diagnostic.
    let mut all = vec![Diagnostic::error(1, Some(1), "bad", "an early error")];
    all.extend((2..=150).map(|n| Diagnostic::warning(n, Some(n as i64), "odd", "a warning")));
    let mut view = ProjectionView {
        at: 150,
        published_through: None,
        pending: None,
        rules: None,
        system: Vec::new(),
        history: Vec::new(),
        agent_loop: None,
        diagnostics: all.clone(),
        diagnostic_count: 0,
        error_count: 0,
    };
    view.fit_diagnostics();
    assert_eq!(view.diagnostic_count, 150, "every listed diagnostic counts");
    assert_eq!(view.error_count, 1, "the error left out still counts");
    assert_eq!(
        view.diagnostics,
        all[50..].to_vec(),
        "the latest {VIEW_DIAGNOSTICS} are kept, in order"
    );
    let fitted = view.clone();
    view.fit_diagnostics();
    assert_eq!(view, fitted, "a fitted view stays as it is");
}
