#!/usr/bin/python3
"""Renders examples/receipt.png, the bundled input of `make demo` (a text-detection model needs
text). Needs Debian's python3-pil and fonts-dejavu; the PNG is committed, so this only documents
where it came from and lets it be remade."""
import os
from PIL import Image, ImageDraw, ImageFont

W, H = 480, 360
img = Image.new("RGB", (W, H), (246, 243, 236))
draw = ImageDraw.Draw(img)
font_dir = "/usr/share/fonts/truetype/dejavu/"
title = ImageFont.truetype(font_dir + "DejaVuSans-Bold.ttf", 28)
body = ImageFont.truetype(font_dir + "DejaVuSansMono.ttf", 20)
draw.text((120, 18), "PARITY CAFE", font=title, fill=(20, 20, 20))
lines = [("Espresso", "2.80"), ("Croissant", "3.10"), ("Orange juice", "4.50"),
         ("Oat milk latte", "4.20"), ("Tax 8%", "1.17"), ("TOTAL", "15.77")]
y = 80
for name, price in lines:
    draw.text((40, y), name, font=body, fill=(30, 30, 30))
    draw.text((360, y), price, font=body, fill=(30, 30, 30))
    y += 40
draw.text((40, y + 10), "Thank you! 2026-12-02", font=body, fill=(60, 60, 90))
img.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "receipt.png"), optimize=True)
