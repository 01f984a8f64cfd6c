"""Evidence frames in the table view, and dice statistics for directors (page and API)."""

from __future__ import annotations

import numpy as np


def _void_with_frame(hall):
    ref = hall.get("1")
    frame = np.full((120, 160, 3), 90, np.uint8)
    out = ref.observe({"type": "roll_void", "reason": "die 2 cocked", "frame": frame})
    assert out[0]["decision"] == "void_roll"
    return out[0]["evidence"]


def test_void_roll_frame_is_linked_and_served(client, hall):
    rel = _void_with_frame(hall)
    assert rel and rel.startswith("evidence/1/")
    page = client.get("/tables/1").get_data(as_text=True)
    url = f"/tables/1/evidence/{rel}"
    assert url in page
    got = client.get(url)
    assert got.status_code == 200
    assert got.mimetype == "image/jpeg"
    assert got.data[:2] == b"\xff\xd8"  # a JPEG


def test_display_never_links_evidence(client, hall):
    rel = _void_with_frame(hall)
    page = client.get("/tables/1/display").get_data(as_text=True)
    assert rel not in page


def test_evidence_outside_the_table_or_folder_is_404(client, hall):
    rel = _void_with_frame(hall)
    assert client.get("/tables/1/evidence/evidence/1/../../record.sqlite3").status_code == 404
    assert client.get("/tables/1/evidence/evidence/1/nothing-here.jpg").status_code == 404
    assert client.get(f"/tables/2/evidence/{rel}").status_code == 404
    assert client.get("/tables/1/evidence/web-secret-key").status_code == 404


def test_dice_statistics_api_and_page(client, hall, op):
    assert client.get("/api/dice").get_json() == {}
    assert "No roll recorded yet" in client.get("/director/dice").get_data(as_text=True)
    for action in ({"action": "roll", "dice": [5, 2]}, {"action": "play", "play": "13/8 13/11"},
                   {"action": "roll", "dice": [3, 3]}):
        assert client.post("/api/tables/1/actions", json=action, headers=op).status_code == 200
    stats = client.get("/api/dice").get_json()
    assert stats, "rolls were recorded"
    total = sum(sum(s["faces"].values()) for s in stats.values())
    assert total >= 4  # the opening roll's two dice and a double (counted as 2 or 4 dice)
    assert all("chi2" in s and "doubles_rate" in s for s in stats.values())
    page = client.get("/director/dice").get_data(as_text=True)
    assert "Dice statistics" in page and next(iter(stats)) in page
