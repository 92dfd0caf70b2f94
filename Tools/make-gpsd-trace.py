#!/usr/bin/env python3
"""Writes Traces/gpsd/short.nmea: a small NMEA 0183 log with known ground truth.

3 epochs without a fix (RMC status V, GGA quality 0), then 40 epochs at 1 Hz of RMC + GGA,
starting 2024-05-01T10:00:03Z at 59.329300 N, 18.068600 E and moving due north at 5 m/s,
altitude 25.0 m MSL rising 0.1 m per epoch, HDOP 0.9. Latitude is written with six decimals
of minutes, so the decoded value is exactly ddmm.mmmmmm / 60. The file is deterministic:
running this script again reproduces it byte for byte.
"""
import math, pathlib

def checksum(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return "%02X" % c

def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))

def ddmm(value, width):
    deg = int(abs(value))
    minutes = (abs(value) - deg) * 60
    return "%0*d%09.6f" % (width, deg, minutes)

R = 6371008.8
lat0, lon0 = 59.3293, 18.0686
out = ["# MissionTrack trace for the gpsd source tests; see Tools/make-gpsd-trace.py\r\n"]
for k in range(3):
    hms = "1000%02d.00" % k
    out.append(sentence("GPRMC,%s,V,,,,,,,010524,,,N" % hms))
    out.append(sentence("GPGGA,%s,,,,,0,00,99.9,,M,,M,," % hms))
for k in range(40):
    t = 3 + k
    hms = "10%02d%02d.00" % (t // 60, t % 60)
    lat = lat0 + math.degrees(5.0 * k / R)
    la, lo = ddmm(lat, 2), ddmm(lon0, 3)
    out.append(sentence("GPRMC,%s,A,%s,N,%s,E,9.719,0.0,010524,,,A" % (hms, la, lo)))
    out.append(sentence("GPGGA,%s,%s,N,%s,E,1,08,0.9,%.1f,M,25.0,M,," % (hms, la, lo, 25.0 + 0.1 * k)))
path = pathlib.Path(__file__).resolve().parent.parent / "Traces" / "gpsd" / "short.nmea"
path.write_text("".join(out), newline="")
print(path)
