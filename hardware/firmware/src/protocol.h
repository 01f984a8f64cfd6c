/* Wire protocol constants shared by the firmware; hardware/PROTOCOL.md is the specification and
 * tablecompanion/leds/protocol.py the host's copy (tests check that the two agree). */
#ifndef LEDBOARD_PROTOCOL_H
#define LEDBOARD_PROTOCOL_H

#define PROTOCOL_VERSION 1
#define FW_VERSION_MAJOR 1
#define FW_VERSION_MINOR 0

#define LED_COUNT 41
#define BUTTON_COUNT 4

/* Decoded frame: type, seq, payload, crc16 (big-endian). */
#define MAX_PAYLOAD 48
#define MAX_DECODED (MAX_PAYLOAD + 4)
#define MAX_ENCODED (MAX_DECODED + 2)

/* Host -> board */
#define T_HELLO      0x01
#define T_STATE      0x02
#define T_PING       0x03
#define T_EVENT_ACK  0x04
/* Board -> host */
#define T_HELLO_REPLY 0x81
#define T_ACK         0x82
#define T_PONG        0x83
#define T_EVENT       0x84
#define T_ERROR       0x85

/* Error codes (first payload byte of T_ERROR) */
#define E_UNKNOWN_TYPE 1
#define E_BAD_LENGTH   2
#define E_BAD_VERSION  3
#define E_BAD_VALUE    4
#define E_NEED_HELLO   5

/* LED byte: bits 0-3 palette colour, bits 4-5 mode, bits 6-7 reserved (must be 0). */
#define MODE_OFF        0
#define MODE_ON         1
#define MODE_BLINK      2
#define MODE_BLINK_FAST 3

#define BLINK_HALF_MS      250
#define BLINK_FAST_HALF_MS 100
#define HOST_TIMEOUT_MS    3000
#define EVENT_RETRY_MS     250
#define EVENT_MAX_TRIES    20

/* LEDs the firmware uses on its own (host-lost pattern, boot): see hardware/README.md. */
#define LED_STATUS 40
#define POINT_LEDS 24

#endif
