# events-query.cmake: test-events-query writes planted traces (tests/sl-plant.c, the schema
# library) and checks the events table's index against brute force.
if(TARGET test-events-query)
  target_sources(test-events-query PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-events-query PRIVATE sightline-schema)
endif()
