//! One case profiled on two builds (`knotmeter compare --profile`): the sides of a two-build
//! comparison (the builds room resolves them: the working tree, or `--head`, and a worktree of
//! the base with a target directory of its own), each profiled as `knotmeter profile` profiles
//! it, and the functions whose own cost changed most.
//!
//! Functions are matched by name: a source line moves with every edit above it, a function's
//! name does not. A function one profile does not list (under a thousandth of its region, or
//! not run) counts as nothing there, and is shown as absent rather than as zero.

use std::collections::HashMap;
use std::path::Path;

use knotmeter_protocol::{FunctionChange, Profile, ProfileComparison, ProfileTool};
use knotmeter_server_builds::{render, reserve, Sides};

use knotmeter_server_discovery::discovery::{Discovery, TargetRef, Workspace};
use tokio_util::sync::CancellationToken;

use crate::cargo_build::BuildEvent;
use crate::process::Children;
use crate::{profile, ProfileError, ProfileEvent, ProfileRequest};

/// Which side a [`ProfileEvent`] of [`profile_both`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The head: the working tree, or `--head`.
    Head,
    /// The base.
    Base,
}

impl Side {
    /// The side as progress and messages name it: `head` or `base`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Head => "head",
            Side::Base => "base",
        }
    }

    /// Where `fraction` (0 to 1) of this side's profile is in the whole of [`profile_both`]
    /// (the head first, then the base): one bar for both.
    pub fn overall(self, fraction: f64) -> f64 {
        let fraction = fraction.clamp(0.0, 1.0);
        match self {
            Side::Head => fraction / 2.0,
            Side::Base => 0.5 + fraction / 2.0,
        }
    }
}

/// The case to profile on both sides, and how.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// The bench target that holds it (on both sides).
    pub target: TargetRef,
    /// Its id.
    pub id: String,
    /// The profiler.
    pub tool: ProfileTool,
    /// The bench binary's time budget under the profiler, in seconds.
    pub seconds: f64,
}

/// Profiles the `wanted` case on both `sides` (the head first), and compares the two profiles.
pub async fn profile_both(
    sides: &Sides,
    wanted: &Wanted,
    children: &Children,
    cancel: &CancellationToken,
    events: &mut (dyn FnMut(Side, ProfileEvent) + Send),
) -> Result<ProfileComparison, ProfileError> {
    let base_name = render::side(&sides.base_side());
    if !has_case(&sides.base_ws, &wanted.id).await {
        return Err(ProfileError::Unusable(format!(
            "the base, {base_name}, has no case {} to profile",
            wanted.id
        )));
    }
    let side = |ws: &Workspace| ProfileRequest {
        workspace: ws.clone(),
        target: wanted.target.clone(),
        id: wanted.id.clone(),
        seconds: wanted.seconds,
        tool: wanted.tool,
    };
    let head_lock = match &sides.head_tree {
        Some((tree, commit)) => {
            Some(take(&sides.head_ws.target_dir, tree, commit, Side::Head, events).await?)
        }
        None => None,
    };
    let head = profile(&side(&sides.head_ws), children, cancel, &mut |event| {
        events(Side::Head, event)
    })
    .await?;
    drop(head_lock);
    let _base_lock = take(
        &sides.base_ws.target_dir,
        &sides.base_tree,
        &sides.base_commit,
        Side::Base,
        events,
    )
    .await?;
    let base = profile(&side(&sides.base_ws), children, cancel, &mut |event| {
        events(Side::Base, event)
    })
    .await
    .map_err(|error| of_the_base(error, &base_name))?;
    Ok(compare(
        &wanted.id,
        base_name,
        render::side(&sides.head_side()),
        base,
        head,
    ))
}

/// Takes a side's target directory for its commit ([`reserve`], off the async runtime: it may
/// wait for another comparison's lock, and touches every file of a worktree), its notes passed
/// on as build output; an error with the whole chain of causes.
async fn take(
    target_dir: &Path,
    tree: &Path,
    commit: &str,
    side: Side,
    events: &mut (dyn FnMut(Side, ProfileEvent) + Send),
) -> Result<std::fs::File, ProfileError> {
    let (target_dir, tree, commit) = (target_dir.to_owned(), tree.to_owned(), commit.to_owned());
    let (held, notes) = tokio::task::spawn_blocking(move || {
        let mut notes = Vec::new();
        let held = reserve(&target_dir, &tree, &commit, &mut |line| {
            notes.push(line.to_owned())
        });
        (held.map_err(|error| format!("{error:#}")), notes)
    })
    .await
    .map_err(|e| ProfileError::Failed(format!("internal error: {e}")))?;
    for line in notes {
        events(side, ProfileEvent::Build(BuildEvent::Output(line)));
    }
    held.map_err(ProfileError::Failed)
}

/// Whether the bench targets of `ws` (the base's worktree) hold case `id`, discovered from
/// their source as the head's are.
async fn has_case(ws: &Workspace, id: &str) -> bool {
    let (ws, id) = (ws.clone(), id.to_owned());
    tokio::task::spawn_blocking(move || {
        Discovery::new(ws)
            .tree()
            .select(None, &[])
            .into_iter()
            .any(|(_, ids)| ids.contains(&id))
    })
    .await
    .unwrap_or(false)
}

/// The base's failure, saying it is the base's: its build's errors are of the base's worktree,
/// not of the files in the editor, so they are words, never diagnostics.
fn of_the_base(error: ProfileError, base: &str) -> ProfileError {
    match error {
        ProfileError::Build { message, .. } => {
            ProfileError::Unusable(format!("the base, {base}, cannot be profiled: {message}"))
        }
        ProfileError::Failed(why) => ProfileError::Failed(format!("the base, {base}: {why}")),
        other => other,
    }
}

/// The comparison of `base`'s and `head`'s profiles of case `id`: every function either lists,
/// the largest change of own cost per operation first (then by name).
pub fn compare(
    id: &str,
    base_label: String,
    head_label: String,
    base: Profile,
    head: Profile,
) -> ProfileComparison {
    let mut by_name: HashMap<&str, FunctionChange> = HashMap::new();
    for (function, in_head) in base
        .functions
        .iter()
        .map(|f| (f, false))
        .chain(head.functions.iter().map(|f| (f, true)))
    {
        let change = by_name
            .entry(function.name.as_str())
            .or_insert_with(|| FunctionChange {
                name: function.name.clone(),
                base_per_op: None,
                head_per_op: None,
                base_share: 0.0,
                head_share: 0.0,
            });
        if in_head {
            change.head_per_op = Some(function.own_per_op);
            change.head_share = function.own_share;
        } else {
            change.base_per_op = Some(function.own_per_op);
            change.base_share = function.own_share;
        }
    }
    let size =
        |c: &FunctionChange| (c.head_per_op.unwrap_or(0.0) - c.base_per_op.unwrap_or(0.0)).abs();
    let mut changes: Vec<FunctionChange> = by_name.into_values().collect();
    changes.sort_by(|a, b| {
        size(b)
            .total_cmp(&size(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    ProfileComparison {
        id: id.to_owned(),
        base_label,
        head_label,
        base,
        head,
        changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use knotmeter_protocol::ProfiledFunction;

    fn profile(functions: &[(&str, f64)]) -> Profile {
        let total: f64 = functions.iter().map(|(_, v)| v).sum();
        Profile {
            id: "b::body".into(),
            tool: ProfileTool::Callgrind,
            unit: "instructions".into(),
            operations: 100,
            total_per_op: total,
            samples: None,
            functions: functions
                .iter()
                .map(|(name, own)| ProfiledFunction {
                    name: (*name).into(),
                    own_per_op: *own,
                    own_share: own / total,
                    inclusive_per_op: *own,
                    line: None,
                })
                .collect(),
            lines: Vec::new(),
            tree: None,
        }
    }

    #[test]
    fn functions_are_matched_by_name_the_largest_change_first() {
        let base = profile(&[("a", 500.0), ("b", 300.0), ("gone", 200.0)]);
        let head = profile(&[("a", 520.0), ("b", 900.0), ("new", 10.0)]);
        let cmp = compare("b::body", "main".into(), "working tree".into(), base, head);
        let order: Vec<&str> = cmp.changes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(order, ["b", "gone", "a", "new"]);
        let gone = &cmp.changes[1];
        assert_eq!((gone.base_per_op, gone.head_per_op), (Some(200.0), None));
        assert_eq!(gone.head_share, 0.0);
        let b = &cmp.changes[0];
        assert_eq!((b.base_per_op, b.head_per_op), (Some(300.0), Some(900.0)));
        assert!((b.head_share - 900.0 / 1430.0).abs() < 1e-12);
    }

    #[test]
    fn the_bases_failures_say_they_are_the_bases_and_publish_no_diagnostics() {
        let built = of_the_base(
            ProfileError::Build {
                message: "the profile build of two failed: expected `;`".into(),
                errors: Vec::new(),
            },
            "main (9f8e7d6c5b)",
        );
        assert!(
            matches!(&built, ProfileError::Unusable(m) if m == "the base, main (9f8e7d6c5b), cannot be profiled: the profile build of two failed: expected `;`"),
            "{built:?}"
        );
        let failed = of_the_base(ProfileError::Failed("panicked".into()), "main");
        assert!(matches!(&failed, ProfileError::Failed(m) if m == "the base, main: panicked"));
        assert!(matches!(
            of_the_base(ProfileError::Cancelled, "main"),
            ProfileError::Cancelled
        ));
    }
}
