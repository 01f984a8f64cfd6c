"""The roll reader's thresholds, each named and explained: what :class:`~tablecompanion.vision.roll_reader.RollReader`
takes as given, kept apart from the reading so that tuning runs and tests can change one and say why."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RollReaderConfig"]


@dataclass(frozen=True)
class RollReaderConfig:
    """Every threshold of the roll reader, named. Sizes in die sides (``BoardSpec.die_size``) or mm."""

    diff_scale: float = 0.5  # the change mask is computed at this fraction of the frame size
    diff_threshold: int = 60  # sum over B, G, R of |frame - reference| that counts as changed
    # a throw short of dice is searched again for fainter change (a black die on a dark point changes the
    # board by 20-50 there, its white pips alone by more), away from what changed at diff_threshold:
    # blobs of which at most faint_overlap lie in that change (0: no second search). On the simulator's
    # noise (2.2 levels) a board without dice shows die-sized blobs of noise at 8 and none at 12: 30 leaves
    # room for a webcam two or three times as noisy
    faint_threshold: int = 30
    faint_overlap: float = 0.25
    margin_mm: float = 110.0  # the search area is the board's outline widened by this much
    # ... and the checkers' by this much: two views of the table whose change lies only beyond it (an arm
    # resting at the table's edge in one) show the same checkers
    checker_area_mm: float = 5.0
    min_blob_area: float = 0.25  # a die-sized blob covers at least this many die faces (in mm^2 / side^2)
    max_blob_side: float = 5.5  # a blob longer than this many die sides is not one or two dice
    # ... nor one this wide every way: a moved checker's change is 2.9-3.1 sides (2.75 and its shadow); two
    # dice lying close under the steep camera, each stretched by its height seen at 40 degrees, reach 2.6
    max_blob_short: float = 2.65
    max_blob_area: float = 8.0  # ... nor one covering more than this many die faces (two dice and shadows
    # seen from a steep angle cover ~6.5)
    occlusion_area: float = 40.0  # changed area (die faces) that means a hand or an arm is in view
    crop_pad: float = 0.75  # die sides of margin around a blob's top-plane extent when cropping
    rect_px_per_mm: float = 3.0  # the top-plane crop's scale: a 16 mm die is 48 px, its pips ~9 px
    max_dice: int = 6
    # a reading's side (mapped to the top-face plane) must be within these multiples of a die's side
    min_size: float = 0.55
    max_size: float = 1.6
    # a die whose centre lies this close to a checker's centre rests on it (mm; a checker is 44 mm across)
    on_checker_mm: float = 19.0
    # a flat die's pips on its top plane fit the face pattern with equal scales: their ratio above this =
    # tilted; beside a checker or the rail a die counts as flat only at or below sure_pattern_ratio
    max_pattern_ratio: float = 1.08
    sure_pattern_ratio: float = 1.06
    # a die whose body shows where a flat die's cannot (beyond the top square and the side faces the camera
    # sees of a flat die at that place), over more than this many mm^2, is tilted; a pixel shows body when
    # no darkening of the reference's board (a shadow) explains its colour within tilt_residual (B+G+R norm)
    max_beyond_area: float = 4.0
    # a face the readers disagree on is taken when a flat die with it on top leaves at most this much body
    # beyond its outline (mm^2) and the other face leaves more than max_beyond_area (_face_the_outline_explains)
    outline_explains: float = 1.0
    # a clear face (face_tol) the grid reader ranks first but without its margin is taken when a flat die with
    # it on top leaves at most outline_explains of body beyond its outline and every rival face on that die
    # more than weak_rival_beyond mm^2 (a 1 seen at an angle: its pip and a side face's make a "2" that scores
    # close). Twice the tilt test's limit, since it overrules the margin: a die tilted 20 degrees under the
    # top camera left 6.5
    weak_face_outline: bool = True
    weak_rival_beyond: float = 8.0
    # the same for a face the grid reader did not rank first: a rival, or one found in the look beyond, away
    # from the camera (_rival_face_the_outline_explains)
    rival_face_outline: bool = True
    # there, a face with all its pips whose blank places differ by at most this (Lab) may be the top too
    rival_even_face: float = 10.0
    # ... and an uneven one, where the camera sees less deep down a flat die's side than this (sides)
    side_pip_depth: float = 0.45
    # the grid reader allows for pips blurred together along the camera's view (GridLook.view)
    view_blur: bool = True
    # a die whose body lies beyond the outline of the face read, but within outline_explains of another clear
    # face's found on it, is unclear, not cocked: which face is the top decides whether it is tilted
    # (_other_face_that_fits)
    other_face_unclear: bool = True
    alternatives_within: float = 0.6  # die sides from the grid reader's face within which other faces are kept
    # the blank places of a clear die face differ by at most face_tol (Lab; the ghost check's); a die's face
    # is read up to loose_face_tol: a translucent die's body, seen through, shades them unevenly (its flat
    # faces spread up to 48). A tilted opaque die's lattice straddles its top and a side face alike, so a
    # face read beyond face_tol counts as flat only when its outline is a flat die's within loose_face_beyond
    # mm^2 (translucent flat dice leave none: their body lets the board through)
    face_tol: float = 32.0
    loose_face_tol: float = 48.0
    loose_face_beyond: float = 1.0
    loose_rivals: bool = False  # a face read beyond face_tol is a rival of a clear face (lowers its margin)
    top_beyond_side: bool = True  # a die read by a side face: a clear face beyond it whose outline holds it
    side_face_depth: float = 0.7  # ... where the camera sees at least this deep down a side (sides)
    # ... and a flat die with that face on top leaves at most this much body beyond its outline (mm^2): the
    # tilt test's own limit, which any die read flat must pass (a clear face found beyond a side face left
    # 3.25; a tilted die's side face leaves tens)
    top_beyond_explains: float = 4.0
    drop_side_faces: bool = True  # an unread "die" within a read die's flat outline is its side face
    tilt_residual: float = 18.0
    # the body model (models/roll_body.npz, tools/train_roll_body.py; "" = the shipped one, None = none): a
    # changed pixel the board's darkening explains is the die's body all the same at P(body) >= body_p, so
    # a white die's side face on an ivory point, a black die's on a dark one, is not taken for its shadow. A
    # die read flat whose body so found lies beyond its flat outline by more than body_beyond_area (mm^2) is
    # tilted. Only pixels changed by body_diff (|frame - reference|, BGR) are asked
    body_model: str | None = ""
    body_p: float = 0.5
    body_beyond_area: float = 8.0
    body_diff: float = 12.0
    # the tilt net (models/roll_tilt.onnx, tools/train_roll_tilt.py; "" = the shipped one, None = none): a die
    # beside a checker or the rail counts as flat at P(tilted) <= tilt_net_flat (0: never on the net's word),
    # and a die read flat is tilted at P >= tilt_net_cocked (above 1: never). Chosen on renders the net was
    # not trained on (seeds 4300-4362, 3900-3948, 4900-4947, the leaning-heavy 40000-40110, the leaning on
    # checkers 41000-41093 and 42000-42092, the tilted in open space 51000-51095; docs/roll-verdicts.md), among
    # the dice it is asked about, for the net retrained in the thirty-sixth session: with the board's edge among
    # what a die touches, the lowest P of the 313 not lying flat was 0.008 (leaving out one leaning on a checker
    # beyond the playing surface, void for its place), half of it 0.004 (127 of 155 flat ones vouched for);
    # beside checkers alone (tilt_net_flat_checker), of 128, 0.618, half of it rounded down 0.30 (98 of 100).
    # tilt_net_cocked: of the dice every other rule read flat, none of 6095 flat ones scores 0.95 or more, and
    # 66 of the 77 tilted ones do (0.9: 1 and 69; 0.8: 2 and 69); 0.95 leaves a margin for a real table's dice,
    # which no render measures. It is asked about every die read flat: 6 ms each
    tilt_net: str | None = ""
    tilt_net_flat: float = 0.004
    tilt_net_flat_checker: float = 0.30
    tilt_net_cocked: float = 0.95
    tilt_net_cocked_median: bool = True  # ... on the median of the net's four views (off: their mean)
    # ... and between tilt_net_unsure and tilt_net_cocked (the same median) the net is not sure it lies flat:
    # unclear, its value put to the players, who see whether it lies flat. Chosen on 12242 dice of renders
    # the shipped net was not trained on (thirty-seventh session's shards, steep cameras and black dice
    # weighted; docs/roll-verdicts.md): of the 6154 flat and 295 tilted dice every other rule read flat in
    # the 9925 of seeds 58000-61144, at 0.25 21 flat ones go to the players (0.34 %) and 290 tilted ones are
    # not accepted (261 at 0.95 alone); lower, 0.15 takes 21 flat dice more for 1 tilted one. On the 2317
    # of seeds 55000-56066, not used to choose: 5 of 1404 flat, 91 of 94 tilted (79 at 0.95). Above 1: never
    tilt_net_unsure: float = 0.25
    # a die called tilted only for its body beyond a flat outline, by at most this (mm^2), is measured again on
    # the mean of the still frames of its rest (the watcher's debounce): a flat die's noise, a flickering
    # lamp's band, averages out there, a tilted die's side face does not (0: no second look)
    second_look_mm2: float = 12.0
    # ... and called flat there only when the mean shows next to no body (a tilted die of 18 degrees, the
    # shallowest simulated, left 2.5 mm^2 in the mean of four frames; a flat one under flicker 0)
    second_look_flat_mm2: float = 1.0
    tilt_margin: float = 0.08  # die sides of blur around the predicted flat silhouette left out
    tilt_reach: float = 0.5  # ... and how far beyond it a tilted die's side face is looked for
    side_face_slack: float = 1.25  # the predicted flat side faces widened by this factor (the focal is a prior)
    tilt_px_per_mm: float = 2.0  # the tilt test's resampling (the readers' is rect_px_per_mm)
    touch_mm: float = 0.85  # die sides beyond a checker's rim within which a die may lean on it
    # ... and this many sides further when the per-photo reader is ``reader_cocked_conf`` sure the die is
    # cocked (its pips drawn out): a die leaning on a checker has its top, where the reader places it, pushed
    # away from the checker (seed 10's void-only case 50, a translucent die leaning 30 degrees, 2.29 sides
    # from the checker's centre, 0.07 beyond the reach of 2.23, read 3-3). Good rolls' dice the reader called
    # cocked that sure lay 2.63 sides away and more (seeds 0-3)
    reader_cocked_reach: float = 0.2
    reader_cocked_conf: float = 0.9
    # die sides from the rail within which a die may lean on it. A die leaning on the rail shows its top face
    # 0.54-0.93 sides from it, read through the webcam's true lens model (0.7 let 17 of 240 through); without
    # one, a webcam's barrel distortion reads it 2-3 mm further out, which 0.7 relied on (3 of 240 through)
    rail_touch_mm: float = 1.0
    die_touch: float = 1.25  # die sides between two dice's centres: one may lean on the other
    bar_touch: float = 0.6  # die sides from the bar's edge within which a die may lean on it
    pattern_proves_flat: bool = False  # beside a support, a square 4-6 pattern proves a die flat (off: unclear)
    trust_reader_cocked: bool = False  # the per-photo reader's "cocked" (pip elongation) voids a roll
    same_die: float = 1.1  # readings closer than this many die sides are one die
    # the grid reader's face centre is searched this many die sides around a reading (or a blob's centre)
    hyp_box: float = 0.5
    blob_box: float = 0.9
    # the per-photo reader centres a die on all it sees of it, its side faces too: from a tilted camera the
    # top lies up to this share of what the camera sees down a side beyond that centre, away from the
    # camera (0: off); where that is at least ``hyp_shift_min`` sides, the grid reader looks there too
    hyp_top_shift: float = 0.5
    hyp_shift_min: float = 0.15
    grid_min_margin: float = 22.0  # its best face must beat every other value by this much...
    grid_min_contrast: float = 15.0  # ... and its weakest pip contrast with the face this much (Lab L)
    grid_alone_contrast: float = 25.0  # the weakest pip's contrast when the grid reader's value stands alone
    # ... and when the per-photo reader reads the same value (it was grid_min_contrast): on a rectified crop
    # both readers see the same faint pip, so agreeing is no evidence that it is a pip of the top. A black 1
    # beside a checker, its pip and a side face's faint one (contrast 23), was read as a 2 by both
    grid_agree_contrast: float = 25.0
    # ... and, standing alone, its weakest pip at least this share of its strongest: one face's pips are
    # painted alike and lie in one plane. Seen from a tilted camera, a black 1's pip and a side face's dim
    # one (a quarter and a third as strong) made a "2" that was accepted; read alone and right, the faces
    # of seven seeds' good rolls had 0.57 and more (0: off)
    grid_even_pips: float = 0.5
    two_dice_side: float = 2.2  # a blob longer than this many die sides may hold two dice
    second_die_gap: float = 1.3  # a second die in one blob is searched this many die sides from the first
    second_die_margin: float = 30.0  # ... and taken only with a clear face
    second_die_contrast: float = 30.0
    # ... and only when this share of its face (the square at the lattice's centre and turn) lies within the
    # changed blob's outline: a lattice fitted half off a die (a corner pip, the centre pip and the dark seam
    # of the die's far edge read as a 3) is no face
    second_die_on_blob: float = 0.75
    # ... so the search looks for its centre only within the blob's extent on the top plane: a face centred
    # beyond it has half its square or more off the blob. False: the whole crop, as before (2.5 times the
    # area on a blob of two dice; the search was a third of the slowest reads)
    second_die_within_blob: bool = True
    grid_agree_margin: float = 8.0  # ... or this much when the per-photo reader reads the same value
    grid_overrules: float = 22.0  # the grid reader's value stands against the per-photo reader's above this margin
    # a pip-like spot where the face read should be blank, at this share of its weakest pip or more, leaves the
    # face unsure (a translucent 6 whose middle pips are faint reads as a 4; faces read right stay below 0.4)
    max_blank_spot: float = 0.5
    trust_reader_alone: bool = False
    # a die-sized change that neither reader reads counts as an unclear die (off: it is no die; a roll
    # then shows fewer than two dice and is void anyway, and a stale reference's ghosts stay harmless)
    unread_blob_is_die: bool = False  # a value the per-photo reader gives that the grid reader cannot check
    # ... but when a throw shows fewer dice than it should, a die-sized change neither reader reads (and no
    # earlier view explains) is taken for the missing die, unclear: "re-roll", not "void: off the board".
    # A black 1 seen at an angle beside its side faces' pips is such a die; a die that left the board
    # changes nothing on it and still makes the throw void.
    unread_change_fills: bool = True
    # a change the per-photo reader finds no die in, that shows its place as an earlier still view did (the
    # board before the last read's dice came, near one of them; a reference replaced since the last read),
    # is no arrival of this throw: it is not searched for a die face (RollReader._seen_before)
    departed_near: float = 1.5  # die sides from a die of the last read
    departed_share: float = 0.1  # at most this share of the blob's pixels differing from that earlier view
    max_views: int = 3  # replaced references kept
    same_board: float = 1.0  # die faces of change (noise) between two references whose checkers are the same
    # a read done ahead (``prefetch``) is reused when the frame to read differs from the one read ahead in
    # at most this many die faces of changed area (sensor noise; a die moving changes far more)
    prefetch_tolerance: float = 0.1
