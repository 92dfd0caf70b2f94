// Eclipse Mosquitto's client library (Debian libmosquitto-dev). Only includes live here:
// the Delivery module's MQTTPublisher is the one file that calls it.
#ifndef MISSIONTRACK_CMOSQUITTO_SHIM_H
#define MISSIONTRACK_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
