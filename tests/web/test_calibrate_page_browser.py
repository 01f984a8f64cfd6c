"""The calibration page in headless Chromium: a person with no camera frame uploads a still, clicks the
board's four corners (one undone and clicked again), saves, and sees the annotated picture; the profile is
saved in the server's data dir and places the points where the board has them.

Skips without chromium/chromedriver, but fails when ``CI=true``. Screenshots go to ``$TC_SCREENSHOTS``
(default: a temporary folder)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablecompanion.calibration import evaluate as ev
from tablecompanion.calibration.profiles import read_profile_file
from tablecompanion.calibration.synthetic import photograph

from .server import Server
from .test_browser import driver, shots  # noqa: F401 - the browser fixtures
from .test_calibrate_page import true_corners, true_point_centres

pytestmark = pytest.mark.slow


def test_operator_clicks_the_corners_and_sees_the_annotated_picture(driver, shots, tmp_path):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    photo = photograph(style="classic", seed=7, markers=False)
    still = tmp_path / "still.png"
    cv2.imwrite(str(still), photo.image)
    h, w = photo.image.shape[:2]
    corners = true_corners(photo)

    srv = Server(["--manual", "--token", "T", "--data-dir", str(tmp_path / "rec"), "--players", "Alice", "Bob"]).start()
    wait = WebDriverWait(driver, 15)
    css = By.CSS_SELECTOR

    def click_at(img, x, y):
        """Click the picture where frame pixel (x, y) is shown (Selenium offsets are from its centre)."""
        rect = driver.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", img)
        dx, dy = x * rect[0] / w - rect[0] / 2, y * rect[1] / h - rect[1] / 2
        ActionChains(driver).move_to_element_with_offset(img, round(dx), round(dy)).click().perform()

    try:
        driver.get(srv.base + "/tables/1")
        driver.find_element(css, ".operator-login summary").click()
        driver.find_element(css, "#token-input").send_keys("T")
        driver.find_element(css, "#sign-in-btn").click()
        wait.until(EC.element_to_be_clickable((css, "#calibrate-btn"))).click()

        # a manual server has no camera: the page says so and asks for a still
        wait.until(EC.presence_of_element_located((css, "#cal-empty")))
        assert "No camera frame for this table" in driver.find_element(css, "#cal-empty").text
        driver.save_screenshot(str(shots / "calibrate-no-picture.png"))
        driver.find_element(css, "#cal-file").send_keys(str(still))
        driver.find_element(css, "#cal-upload-btn").click()
        img = wait.until(EC.presence_of_element_located((css, "#cal-img")))
        wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) == w)
        assert driver.find_element(css, "#cal-save").get_attribute("disabled") is not None

        # three corners, a wrong fourth undone, then the right one (in no particular order)
        for i in (2, 0, 3):
            click_at(img, *corners[i])
        assert driver.find_element(css, "body").get_attribute("data-clicks") == "3"
        assert driver.find_element(css, "#cal-save").get_attribute("disabled") is not None
        click_at(img, w / 2, h / 2)
        driver.find_element(css, "#cal-undo").click()
        click_at(img, *corners[1])
        assert driver.find_element(css, "body").get_attribute("data-clicks") == "4"
        assert len(driver.find_elements(css, "#cal-overlay circle")) == 4
        click_at(img, w / 2, h / 2)  # a fifth click is refused with a toast (base.html's, toast.js)
        wait.until(lambda d: "show" in d.find_element(css, "#toast").get_attribute("class"))
        assert "Four corners already" in driver.find_element(css, "#toast").text
        assert driver.find_element(css, "body").get_attribute("data-clicks") == "4"
        assert driver.find_elements(css, "#cal-overlay polygon")
        driver.save_screenshot(str(shots / "calibrate-clicked.png"))

        driver.find_element(css, "#cal-home").send_keys("left")
        wait.until(EC.element_to_be_clickable((css, "#cal-save"))).click()
        wait.until(lambda d: d.find_element(css, "body").get_attribute("data-result") == "shown")
        result = driver.find_element(css, "#cal-result-img")
        assert driver.execute_script("return arguments[0].naturalWidth", result) == w
        assert "table-1" in driver.find_element(css, "#cal-summary").text
        assert not driver.find_element(css, "#cal-error").text
        driver.execute_script("arguments[0].scrollIntoView()", result)
        driver.save_screenshot(str(shots / "calibrate-result.png"))

        # what the page shows is what was saved: the server's data dir, points where the board has them
        path = tmp_path / "rec" / "profiles" / "table-1.json"
        assert str(path) in driver.find_element(css, "#cal-summary").text
        cal = read_profile_file(path)
        assert cal.geometry.home == "left" and cal.image_size == (w, h)
        assert ev.point_error_mm(cal, ev.Case("browser", photo.image, true_point_centres(photo))) < 3.0
        shown = driver.execute_script("""
            var c = document.createElement('canvas'), i = arguments[0];
            c.width = i.naturalWidth; c.height = i.naturalHeight;
            c.getContext('2d').drawImage(i, 0, 0);
            return c.toDataURL('image/png').split(',')[1];""", result)
        import base64

        annotated = cv2.imdecode(np.frombuffer(base64.b64decode(shown), np.uint8), cv2.IMREAD_COLOR)
        assert annotated.shape == photo.image.shape
        assert np.abs(annotated.astype(int) - photo.image.astype(int)).mean() > 2  # regions drawn on it
    finally:
        srv.stop()
