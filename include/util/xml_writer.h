/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xml_writer.h - a small XML writer into a growing buffer: elements with attributes, each
 * start tag on one line, one space of indentation per level, empty elements closed with
 * "/>", no declaration; the layout libxml2's xmlTextWriter makes with indentation " ".
 * Attribute values are escaped (& < > " and tab, LF, CR as character references); a value
 * with another control byte, or a name that is not a plain XML name, fails the document.
 *
 *   struct nn_xml_writer w;
 *   nn_xml_writer_init(&w);
 *   nn_xml_writer_start(&w, "system"); nn_xml_writer_attr(&w, "version", "1");
 *   nn_xml_writer_end(&w);
 *   nn_xml_writer_finish(&w, &text, &len);   // "<system version=\"1\"/>\n"
 *
 * Errors are sticky: after the first one every call does nothing and finish fails.
 */
#ifndef NCCL_NUMA_XML_WRITER_H
#define NCCL_NUMA_XML_WRITER_H

#include <stddef.h>

#define NN_XML_WRITER_MAX_DEPTH 16

struct nn_xml_writer {
  char *buf;
  size_t len, cap;
  const char *open[NN_XML_WRITER_MAX_DEPTH]; /* element names, outermost first */
  int depth;
  int tag_open; /* the innermost start tag still takes attributes */
  int failed;
};

void nn_xml_writer_init(struct nn_xml_writer *w);

/* Opens element `name` (kept by pointer until its end) inside the current one. */
void nn_xml_writer_start(struct nn_xml_writer *w, const char *name);

/* Adds an attribute to the element just started, before any child. */
void nn_xml_writer_attr(struct nn_xml_writer *w, const char *name, const char *value);

/* Closes the innermost element. */
void nn_xml_writer_end(struct nn_xml_writer *w);

/* Ends the document: returns 0 and hands over the text (malloc'd, NUL-terminated, the
 * caller frees it; *len without the NUL), or -1 when any call failed, an element is still
 * open or nothing was written. The writer is empty afterwards either way. */
int nn_xml_writer_finish(struct nn_xml_writer *w, char **text, size_t *len);

/* Frees what the writer holds (after an error, instead of finish). */
void nn_xml_writer_discard(struct nn_xml_writer *w);

#endif
