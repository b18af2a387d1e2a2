#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Sends COUNT IPv4/UDP frames of SIZE bytes (larger than a page: the
receiving XDP program gets them in several buffers) from SRC out of DEV to
DST_MAC at RATE a second, through an AF_PACKET socket: rwgen's live frames
(BPF_PROG_RUN) cannot be larger than a page. Paced, since a veth whose peer
runs XDP drops what overflows its ring (256 frames). Run inside a test's
sender namespace. Prints {"sent": N, "seconds": S}.

Usage: jumbo_send.py DEV DST_MAC SRC COUNT SIZE RATE"""
import ipaddress
import json
import socket
import struct
import sys
import time


def checksum(data):
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def frame(dst_mac, src, size):
    dst = "198.19.255.254"
    for a in (src, dst):  # the tests' ranges only
        if ipaddress.ip_address(a) not in ipaddress.ip_network("198.18.0.0/15"):
            sys.exit(f"jumbo_send: {a} is outside 198.18.0.0/15")
    udp_len = size - 14 - 20
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", 1024, 9, udp_len, 0)  # no checksum: legal for IPv4
    eth = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex("02000000000a") + b"\x08\x00"
    return eth + ip + udp + bytes(udp_len - 8)


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__.split("\n\n")[-1])
    dev, dst_mac, src = sys.argv[1:4]
    count, size, rate = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    if not 0 < count <= 100000 or not 64 <= size <= 9000 or not 0 < rate <= 100000:
        sys.exit("jumbo_send: COUNT 1-100000, SIZE 64-9000, RATE up to 100000")
    f = frame(dst_mac, src, size)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((dev, 0))
    t0 = time.monotonic()
    for i in range(count):
        ahead = t0 + i / rate - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
        s.send(f)
    print(json.dumps({"sent": count, "seconds": round(time.monotonic() - t0, 6)}))


if __name__ == "__main__":
    main()
