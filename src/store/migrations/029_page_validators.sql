-- Conditional requests (issue #41): the validators (ETag, Last-Modified) of
-- the last full answer of a monitor's page, sent back as If-None-Match /
-- If-Modified-Since so that an unchanged page answers 304 without a body.
-- config_version is the monitor's configuration they were read under: a
-- check after a target or rule change does not use them and loads the page
-- whole. One narrow row per html monitor whose site sends validators.
CREATE TABLE page_validators (
  monitor_id uuid PRIMARY KEY REFERENCES monitors (id) ON DELETE CASCADE,
  config_version integer NOT NULL,
  etag text,
  last_modified text,
  CHECK (etag IS NOT NULL OR last_modified IS NOT NULL)
);
